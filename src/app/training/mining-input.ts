// The files a mining reads, parsed and joined into a mining set: a BEIR corpus (corpus.jsonl), with its queries and
// qrels, or with query-positive pairs (or the pairs alone); what the join left out, in words.
import { beirDocumentText, parseBeirJsonl, parseBeirQrels } from '../../io/beir/beir.ts';
import { parseQueryPairs } from '../../io/triplets/query-pairs.ts';
import {
  miningSetFromPairs,
  miningSetFromQrels,
  type IdText,
  type MiningSet,
  type MiningSetNotes,
} from '../../contract/training/mining-set.ts';
import { tripletFormat } from './training-data.ts';

/** A file's bytes and the name messages give it. */
export interface NamedBytes {
  bytes: Uint8Array;
  name: string;
}

/** Either queries and qrels (with a corpus), or pairs (with a corpus or not). */
export interface MiningFiles {
  corpus?: NamedBytes;
  queries?: NamedBytes;
  qrels?: NamedBytes;
  pairs?: NamedBytes;
}

function corpusRecords(file: NamedBytes | undefined, warnings: string[]): IdText[] {
  if (!file) return [];
  const parsed = parseBeirJsonl(file.bytes, file.name);
  warnings.push(...parsed.warnings);
  return parsed.records.map((r) => ({ id: r.id, text: beirDocumentText(r.title, r.text) }));
}

/** Parses and joins the files; the set, and what the readers changed on the way (warnings). */
export function readMiningSet(files: MiningFiles): { set: MiningSet; warnings: string[] } {
  const warnings: string[] = [];
  if (files.pairs) {
    const { bytes, name } = files.pairs;
    const format = tripletFormat(bytes, name);
    if (format === 'parquet') throw new Error(`${name}: pairs are read from TSV or JSON Lines, not Parquet`);
    const pairs = parseQueryPairs(bytes, name, format === 'jsonl').map((p) => ({
      query: { id: `${name}:${p.line}`, text: p.query },
      positive: p.positive,
    }));
    return { set: miningSetFromPairs(pairs, corpusRecords(files.corpus, warnings), name), warnings };
  }
  if (!files.corpus || !files.queries || !files.qrels)
    throw new Error('mining needs a corpus, its queries and qrels, or query-positive pairs');
  const corpus = corpusRecords(files.corpus, warnings);
  const queries = parseBeirJsonl(files.queries.bytes, files.queries.name);
  warnings.push(...queries.warnings);
  const judged = parseBeirQrels(files.qrels.bytes, files.qrels.name);
  if (judged.duplicates)
    warnings.push(`${files.qrels.name}: ${judged.duplicates} rows repeat a (query, document) pair (the last kept)`);
  return { set: miningSetFromQrels(corpus, queries.records, judged.qrels, files.qrels.name), warnings };
}

const quoted = (ids: readonly string[]) =>
  ids
    .slice(0, 3)
    .map((id) => `"${id}"`)
    .join(', ');

/** The notes of a join as lines a user reads (nothing for what did not happen). */
export function describeMiningNotes(notes: MiningSetNotes): string[] {
  const lines: string[] = [];
  if (notes.unknownQueries.length)
    lines.push(
      `${notes.unknownQueries.length} judged query ids are absent from the queries (or have no text), skipped: ${quoted(notes.unknownQueries)}`,
    );
  if (notes.unknownDocuments.count)
    lines.push(
      `${notes.unknownDocuments.count} positives name documents absent from the corpus (or with no text), skipped: ${quoted(notes.unknownDocuments.examples)}`,
    );
  if (notes.withoutPositive.length)
    lines.push(
      `${notes.withoutPositive.length} judged queries have no positive left (no judgment above 0, or none in the corpus), skipped: ${quoted(notes.withoutPositive)}`,
    );
  if (notes.unjudgedQueries)
    lines.push(`${notes.unjudgedQueries} queries have no judgment in the qrels (another split's?), not mined`);
  if (notes.emptyDocuments) lines.push(`${notes.emptyDocuments} corpus documents have no text, left out`);
  if (notes.duplicateDocuments)
    lines.push(`${notes.duplicateDocuments} corpus documents repeat an earlier one's text: one document each`);
  if (notes.mergedQueries)
    lines.push(`${notes.mergedQueries} queries repeat an earlier one's text: one query with both ones' positives`);
  return lines;
}

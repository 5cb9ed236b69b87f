// BEIR test collections: corpus.jsonl, queries.jsonl and qrels/<split>.tsv, joined into one RetrievalDataset.
import type { RetrievalDataset } from '../retrieval/dataset.ts';
import type { Qrels } from '../retrieval/run-types.ts';
import { MissingFileError, allInOrder, fileLocation, readRequiredFile, type FileSource } from './file-source.ts';

/** Text a model sees for a BEIR document: title + " " + text, trimmed, when there is a title (as BEIR's encoders do). */
export function beirDocumentText(title: string | undefined, text: string): string {
  return (title ? `${title} ${text}` : text).trim();
}

export interface JsonlRecord {
  id: string;
  title?: string;
  text: string;
}

/** Parses a BEIR JSONL file ({"_id", "title"?, "text"} per line); bad lines are errors naming file and line. */
export function parseBeirJsonl(content: string, fileName: string): { records: JsonlRecord[]; duplicates: number } {
  const records: JsonlRecord[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  const lines = content.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const where = `${fileName}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new Error(`${where}: not valid JSON (${(error as Error).message})`);
    }
    const record = value as { _id?: unknown; title?: unknown; text?: unknown };
    if (typeof record !== 'object' || record === null) throw new Error(`${where}: expected a JSON object`);
    if (typeof record._id !== 'string' && typeof record._id !== 'number') throw new Error(`${where}: missing "_id"`);
    if (typeof record.text !== 'string') throw new Error(`${where}: missing "text" string`);
    const id = String(record._id);
    if (seen.has(id)) {
      duplicates++;
      continue;
    }
    seen.add(id);
    records.push({ id, text: record.text, title: typeof record.title === 'string' ? record.title : undefined });
  }
  return { records, duplicates };
}

/** Parses a BEIR qrels TSV ("query-id corpus-id score", header line optional). */
export function parseBeirQrels(content: string, fileName: string): { qrels: Qrels; duplicates: number } {
  const qrels: Qrels = new Map();
  let duplicates = 0;
  const lines = content.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    if (line.trim() === '') continue;
    const where = `${fileName}:${i + 1}`;
    const parts = line.split('\t');
    if (parts.length !== 3) throw new Error(`${where}: expected 3 tab-separated columns "query-id corpus-id score", found ${parts.length}`);
    const score = Number(parts[2]);
    if (!Number.isInteger(score) || parts[2].trim() === '') {
      if (i === 0) continue; // the header row
      throw new Error(`${where}: score "${parts[2]}" is not an integer`);
    }
    let judged = qrels.get(parts[0]);
    if (!judged) qrels.set(parts[0], (judged = new Map()));
    if (judged.has(parts[1])) duplicates++;
    judged.set(parts[1], score);
  }
  return { qrels, duplicates };
}

/**
 * Joins parsed corpus, queries and qrels: keeps the judged queries (in the order of queries.jsonl), drops judged
 * queries with no text and counts them, counts judged documents absent from the corpus (they stay in the qrels,
 * lowering recall as trec_eval would), and refuses a result with nothing left to evaluate.
 */
export function assembleDataset(
  name: string,
  corpus: { records: JsonlRecord[]; duplicates: number },
  queries: { records: JsonlRecord[]; duplicates: number },
  judged: { qrels: Qrels; duplicates: number },
): RetrievalDataset {
  const warnings: string[] = [];
  if (corpus.records.length === 0) throw new Error(`${name}: the corpus is empty`);
  if (corpus.duplicates) warnings.push(`${corpus.duplicates} corpus lines repeat an earlier _id (first kept)`);
  if (queries.duplicates) warnings.push(`${queries.duplicates} query lines repeat an earlier _id (first kept)`);
  if (judged.duplicates) warnings.push(`${judged.duplicates} qrels rows repeat a (query, document) pair (last kept)`);

  const queryText = new Map(queries.records.map((r) => [r.id, r.text]));
  const unknownQueries = [...judged.qrels.keys()].filter((id) => !queryText.has(id));
  if (unknownQueries.length) {
    warnings.push(`${unknownQueries.length} judged query ids have no entry in the queries (dropped), e.g. "${unknownQueries[0]}"`);
    for (const id of unknownQueries) judged.qrels.delete(id);
  }
  if (judged.qrels.size === 0) throw new Error(`${name}: no judged query is present in the queries, nothing to evaluate`);

  const corpusIds = new Set(corpus.records.map((r) => r.id));
  let unknownDocs = 0;
  let example = '';
  for (const docs of judged.qrels.values()) for (const id of docs.keys()) if (!corpusIds.has(id)) (unknownDocs++, (example ||= id));
  if (unknownDocs) warnings.push(`${unknownDocs} qrels rows name documents absent from the corpus (kept as judged, never retrievable), e.g. "${example}"`);

  const evaluated = queries.records.filter((r) => judged.qrels.has(r.id));
  return {
    name,
    corpusIds: corpus.records.map((r) => r.id),
    corpusTexts: corpus.records.map((r) => beirDocumentText(r.title, r.text)),
    queryIds: evaluated.map((r) => r.id),
    queryTexts: evaluated.map((r) => r.text),
    qrels: judged.qrels,
    warnings,
  };
}

async function requiredText(source: FileSource, path: string): Promise<string> {
  try {
    return new TextDecoder().decode(await readRequiredFile(source, path));
  } catch (error) {
    if (error instanceof MissingFileError) {
      throw new Error(`${error.message}; a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/<split>.tsv`);
    }
    throw error;
  }
}

/** Loads a BEIR folder (or URL base) for one qrels split. */
export async function loadBeir(source: FileSource, split = 'test', name = source.label): Promise<RetrievalDataset> {
  const [corpusText, queriesText, qrelsText] = await allInOrder<[string, string, string]>([
    requiredText(source, 'corpus.jsonl'),
    requiredText(source, 'queries.jsonl'),
    requiredText(source, `qrels/${split}.tsv`),
  ]);
  return assembleDataset(
    name,
    parseBeirJsonl(corpusText, fileLocation(source, 'corpus.jsonl')),
    parseBeirJsonl(queriesText, fileLocation(source, 'queries.jsonl')),
    parseBeirQrels(qrelsText, fileLocation(source, `qrels/${split}.tsv`)),
  );
}

// Sparse vectors as search engines take them, once for the page and the CLI: the format table, one writer per engine
// (src/retrieval), and the file-level checks each engine needs (names that two token ids would share, id forms, sizes
// an engine's default build holds), refused or said as warnings. docs/deploy.md has each format's layout and source.
import { beirDocumentText, parseBeirJsonl } from '../../io/beir/beir.ts';
import { describeCollisions, nameCollisions, type Vocabulary } from '../../retrieval/engine-names.ts';
import { anseriniDocument } from '../../retrieval/exports.ts';
import { bulkDocument, LUCENE_NAME_RULES, type LuceneFlavour } from '../../retrieval/lucene-features.ts';
import { qdrantPointIds, qdrantPointLine } from '../../retrieval/qdrant-points.ts';
import { SEISMIC_QUERY_TOKEN_CHARS, SEISMIC_U16_TOKENS, seismicFileFacts, seismicLine } from '../../retrieval/seismic-jsonl.ts';
import { hasDecodedWordMarks, VESPA_NAME, VESPA_NAMESPACE, vespaDocumentId, vespaPutLine } from '../../retrieval/vespa-feed.ts';
import type { SparseVector } from '../../util/sparse-vector.ts';

export { vespaSchema, vespaServices, VESPA_MODEL_FILE } from '../../retrieval/vespa-application.ts';

export const EXPORT_FORMATS = ['anserini', 'qdrant', 'es', 'opensearch', 'opensearch-ids', 'vespa', 'seismic'] as const;

export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What each format writes, in one line (the CLI's help and the docs say the same). */
export const EXPORT_FORMAT_SUMMARIES: Record<ExportFormat, string> = {
  anserini: 'Anserini JsonVectorCollection: {"id", "contents", "vector": {token: round(scale w)}} per line',
  qdrant: 'Qdrant points: {"id", "vector": {<field>: {"indices", "values"}}, "payload": {"doc_id", "text"}} per line',
  es: 'Elasticsearch _bulk NDJSON for a sparse_vector or rank_features <field>, "." in a token written "__" as Elasticsearch\'s own inference names tokens',
  opensearch: 'OpenSearch _bulk NDJSON for a rank_features <field>, tokens as they are',
  'opensearch-ids': 'OpenSearch 3.3+ _bulk NDJSON for a sparse_vector <field>, keyed by token id ("2001": w)',
  vespa:
    'Vespa feed: {"put": "id:<namespace>:<doctype>::<id>", "fields": {"doc_id", "text", <field>: {"cells": {token: w}}}} per line',
  seismic: 'Seismic JSONL for SeismicIndex.build: {"id", "content", "vector": {token: w}} per line',
};

export const EXPORT_DEFAULTS = { scale: 100, field: 'splade', vespaNamespace: 'splade', vespaDoctype: 'doc' } as const;

export function isExportFormat(name: string): name is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(name);
}

/** Field names the formats write beside the vector field. */
const FIXED_FIELDS = ['text', 'doc_id', 'id', 'content', 'contents'];

/** The vector field's name: a letter, then letters, digits or "_" (a valid field in Elasticsearch, OpenSearch and Vespa). */
export function checkExportField(field: string): string {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(field) || FIXED_FIELDS.includes(field))
    throw new Error(
      `field name ${JSON.stringify(field)} is not usable: give a letter followed by letters, digits or "_", other than ${FIXED_FIELDS.join(', ')}`,
    );
  return field;
}

export interface ExportRecord {
  id: string;
  /** The text the vector was computed from (written beside the vector). */
  text: string;
}

/**
 * BEIR-style JSONL records ({"_id", "title"?, "text"} per line) as records to encode (title and text joined), with
 * the reader's warnings (fields cut to their first characters).
 */
export function readExportRecords(content: Uint8Array, name: string): { records: ExportRecord[]; warnings: string[] } {
  const { records, warnings } = parseBeirJsonl(content, name);
  return { records: records.map((r) => ({ id: r.id, text: beirDocumentText(r.title, r.text) })), warnings };
}

export interface ExportOptions {
  /** Anserini's impact scale: round(scale * w). */
  scale?: number;
  /** The vector's field (es, opensearch, opensearch-ids, vespa) or named vector (qdrant). */
  field?: string;
  vespa?: { namespace?: string; doctype?: string };
}

export interface ExportedVectors {
  /** The file's lines (the `_bulk` formats: two per record). */
  lines: string[];
  /** Entries left out: weights an engine refuses, tokens Anserini cannot write. */
  dropped: number;
  /** What was left out, merged or renumbered, and what an engine's default build will not take. */
  warnings: string[];
}

/** The vector fields of OpenSearch's SEISMIC path fold token ids modulo 32768 (neural-search SparseConstants.MODULUS_FOR_SHORT). */
const OPENSEARCH_SEISMIC_IDS = 32768;

function refuseCollisions(
  format: ExportFormat,
  rule: 'token' | 'elasticsearch',
  vocab: Vocabulary,
  vectors: readonly SparseVector[],
) {
  const collisions = nameCollisions(rule, vocab, vectors);
  if (collisions.length === 0) return;
  const how =
    rule === 'elasticsearch'
      ? 'Elasticsearch names a token with "." written "__" (as its own inference does), so these would be one feature'
      : 'several token ids spell the same token, so the engine would take them for one';
  throw new Error(
    `the ${format} format cannot write these vectors: ${collisions.length} name(s) would stand for several tokens (${describeCollisions(collisions, vocab)}); ${how}. ` +
      'Write --format opensearch-ids or qdrant instead (keyed by token id).',
  );
}

function luceneLines(
  flavour: LuceneFlavour,
  records: readonly ExportRecord[],
  vectors: readonly SparseVector[],
  vocab: Vocabulary,
  field: string,
): ExportedVectors {
  const rule = LUCENE_NAME_RULES[flavour];
  if (rule !== 'id') refuseCollisions(flavour, rule, vocab, vectors);
  const result: ExportedVectors = { lines: [], dropped: 0, warnings: [] };
  records.forEach((record, i) => {
    const { lines, dropped } = bulkDocument(record.id, record.text, vectors[i], vocab, { flavour, field });
    result.lines.push(...lines);
    result.dropped += dropped;
  });
  if (result.dropped)
    result.warnings.push(
      `${result.dropped} entries left out: Lucene's FeatureField takes only positive normal float32 weights (at least 2^-126)`,
    );
  if (flavour === 'opensearch-ids' && vocab.length > OPENSEARCH_SEISMIC_IDS)
    result.warnings.push(
      `this vocabulary has ${vocab.length} ids: OpenSearch's sparse_vector keeps them whole on its exact path, but its SEISMIC ` +
        `path (segments of approximate_threshold documents or more) folds ids modulo ${OPENSEARCH_SEISMIC_IDS}, so ids i and ` +
        `i + ${OPENSEARCH_SEISMIC_IDS} share a posting list there (their larger weight kept)`,
    );
  return result;
}

function anseriniLines(records: readonly ExportRecord[], vectors: readonly SparseVector[], vocab: Vocabulary, scale: number) {
  const result: ExportedVectors = { lines: [], dropped: 0, warnings: [] };
  const whitespace = new Set<string>();
  records.forEach((record, i) => {
    const document = anseriniDocument(record.id, vectors[i], vocab, { scale, contents: record.text });
    result.lines.push(document.line);
    result.dropped += document.whitespace.length;
    for (const token of document.whitespace) whitespace.add(token);
  });
  if (whitespace.size)
    result.warnings.push(
      `${result.dropped} entries left out: their tokens hold white space, and Anserini splits a vector's pseudo-document on ` +
        `white space (${[...whitespace]
          .slice(0, 5)
          .map((t) => JSON.stringify(t))
          .join(', ')})`,
    );
  const collisions = nameCollisions('token', vocab, vectors);
  if (collisions.length)
    result.warnings.push(
      `several token ids spell one token (${describeCollisions(collisions, vocab)}): Anserini indexes words, so they share ` +
        'one posting list, and their impacts add where a document holds both',
    );
  return result;
}

function qdrantLines(records: readonly ExportRecord[], vectors: readonly SparseVector[], field: string): ExportedVectors {
  const { pointIds, renumbered } = qdrantPointIds(records.map((r) => r.id));
  return {
    lines: records.map((record, i) => qdrantPointLine(pointIds[i], record, vectors[i], field)),
    dropped: 0,
    warnings: renumbered
      ? [
          'Qdrant point ids are unsigned integers or UUIDs, and these record ids are not all such (or repeat): the points ' +
            'are numbered 0..n-1 by line and each keeps its record id in payload.doc_id',
        ]
      : [],
  };
}

function vespaLines(
  records: readonly ExportRecord[],
  vectors: readonly SparseVector[],
  vocab: Vocabulary,
  field: string,
  options: ExportOptions['vespa'] = {},
): ExportedVectors {
  const namespace = options.namespace ?? EXPORT_DEFAULTS.vespaNamespace;
  const doctype = options.doctype ?? EXPORT_DEFAULTS.vespaDoctype;
  if (!VESPA_NAMESPACE.test(namespace))
    throw new Error(`Vespa namespace ${JSON.stringify(namespace)}: use letters, digits, "_", "." or "-"`);
  if (!VESPA_NAME.test(doctype))
    throw new Error(`Vespa document type ${JSON.stringify(doctype)}: use a letter or "_", then letters, digits or "_"`);
  if (hasDecodedWordMarks(vocab))
    throw new Error(
      'the vespa format labels tensor cells with token strings, and this vocabulary marks words with "Ġ" or "▁": Vespa\'s ' +
        'splade-embedder labels query tokens with tokenizer.decode([id]) ("Ġthe" becomes " the"), so its queries would ' +
        'never match this feed. Use a WordPiece model (BERT, DistilBERT) for Vespa, or write --format qdrant or opensearch-ids',
    );
  refuseCollisions('vespa', 'token', vocab, vectors);
  return {
    lines: records.map((record, i) =>
      vespaPutLine(vespaDocumentId(namespace, doctype, record.id), record, vectors[i], vocab, field),
    ),
    dropped: 0,
    warnings: [],
  };
}

function seismicLines(records: readonly ExportRecord[], vectors: readonly SparseVector[], vocab: Vocabulary): ExportedVectors {
  refuseCollisions('seismic', 'token', vocab, vectors);
  const facts = seismicFileFacts(vectors, vocab);
  const warnings: string[] = [];
  if (facts.distinctTokens > SEISMIC_U16_TOKENS)
    warnings.push(
      `this file holds ${facts.distinctTokens} distinct tokens, more than the ${SEISMIC_U16_TOKENS} the default SeismicIndex ` +
        '(u16 component ids) builds from: SeismicIndex.build stops with "The number of different tokens exceeds 2^16"; build ' +
        'it with SeismicIndexLV (u32 ids) instead',
    );
  else if (vocab.length > SEISMIC_U16_TOKENS)
    warnings.push(
      `this vocabulary has ${vocab.length} tokens, more than the ${SEISMIC_U16_TOKENS} distinct tokens the default SeismicIndex ` +
        `(u16 ids) holds; this file uses ${facts.distinctTokens}, which fits, but a larger collection may not: ` +
        'SeismicIndexLV (u32 ids) takes any number',
    );
  if (facts.longTokens.length)
    warnings.push(
      `${facts.longTokens.length} tokens are longer than ${SEISMIC_QUERY_TOKEN_CHARS} characters (e.g. ${JSON.stringify(facts.longTokens[0])}): ` +
        `Seismic's examples build query token arrays with numpy dtype U${SEISMIC_QUERY_TOKEN_CHARS}, which cuts them; use a longer dtype for queries`,
    );
  return { lines: records.map((r, i) => seismicLine(r.id, r.text, vectors[i], vocab)), dropped: 0, warnings };
}

export function exportVectors(
  format: ExportFormat,
  records: readonly ExportRecord[],
  vectors: readonly SparseVector[],
  vocab: Vocabulary,
  options: ExportOptions = {},
): ExportedVectors {
  if (records.length !== vectors.length)
    throw new Error(`export: ${records.length} records but ${vectors.length} vectors; every record needs its vector`);
  const field = checkExportField(options.field ?? EXPORT_DEFAULTS.field);
  switch (format) {
    case 'anserini':
      return anseriniLines(records, vectors, vocab, options.scale ?? EXPORT_DEFAULTS.scale);
    case 'qdrant':
      return qdrantLines(records, vectors, field);
    case 'es':
    case 'opensearch':
    case 'opensearch-ids':
      return luceneLines(format, records, vectors, vocab, field);
    case 'vespa':
      return vespaLines(records, vectors, vocab, field, options.vespa);
    case 'seismic':
      return seismicLines(records, vectors, vocab);
  }
}

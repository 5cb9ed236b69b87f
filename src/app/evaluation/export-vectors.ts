// Sparse vectors as search engines take them, once for the page and the CLI: Anserini JSONL (token -> round(100 w)),
// Qdrant (indices/values) and Elasticsearch/OpenSearch rank_features.
import { beirDocumentText, parseBeirJsonl } from '../../io/beir.ts';
import { anseriniDocumentLine, qdrantSparseVector, rankFeatures } from '../../retrieval/exports.ts';
import type { SparseVector } from '../../util/sparse-vector.ts';

export const EXPORT_FORMATS = ['anserini', 'qdrant', 'es'] as const;

export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export function isExportFormat(name: string): name is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(name);
}

export interface ExportRecord {
  id: string;
  /** The text the vector was computed from (Anserini keeps it as "contents"). */
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

export interface ExportedVectors {
  /** One JSON line per record. */
  lines: string[];
  /** Entries rank_features cannot hold (non-positive weights, tokens with dots replaced), left out. */
  dropped: number;
}

export function exportVectors(
  format: ExportFormat,
  records: readonly ExportRecord[],
  vectors: readonly SparseVector[],
  vocab: readonly string[],
  scale = 100,
): ExportedVectors {
  let dropped = 0;
  const lines = records.map((record, i) => {
    const vector = vectors[i];
    if (format === 'anserini') return anseriniDocumentLine(record.id, vector, vocab, { scale, contents: record.text });
    if (format === 'qdrant') return JSON.stringify({ id: record.id, vector: qdrantSparseVector(vector) });
    const features = rankFeatures(vector, vocab, { dotReplacement: '_' });
    dropped += features.droppedNonPositive + features.droppedDotted;
    return JSON.stringify({ id: record.id, rank_features: features.features });
  });
  return { lines, dropped };
}

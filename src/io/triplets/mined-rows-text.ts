// Mined rows as the text of the file `splade-lab train` reads: TSV (a header, then query, positive, negative or
// negative_1..n) or JSON Lines (train's keys; the labeled formats with sentence-transformers' label columns); the
// file kinds by name (Parquet is written by mined-rows-parquet.ts).
import type { MinedRow, OutputFormat } from '../../contract/training/mined-rows.ts';

export type MinedFileKind = 'tsv' | 'jsonl' | 'parquet';
export type MinedTextKind = Exclude<MinedFileKind, 'parquet'>;

/** The file kind of an output path by its name (.tsv; .jsonl or .ndjson; .parquet), or null. */
export function minedFileKind(path: string): MinedFileKind | null {
  const lower = path.toLowerCase();
  if (lower.endsWith('.tsv')) return 'tsv';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  if (lower.endsWith('.parquet')) return 'parquet';
  return null;
}

/**
 * Why a TSV cannot hold `format`, or null: a labeled-list row holds lists, and a labeled pair's three columns are what
 * train reads from a TSV as a triplet (the label as the negative's text).
 */
export function tsvFormatProblem(format: OutputFormat): string | null {
  if (format === 'labeled-list') return 'a labeled-list row holds lists (negatives, labels), which a TSV has no place for';
  if (format === 'labeled-pair')
    return 'train would read a TSV of query, passage and label as triplets (the label as the negative)';
  return null;
}

/** A TSV field cannot hold a tab or a line break: the first of `texts` that does, or -1. */
export function firstTextBreakingTsv(texts: readonly string[]): number {
  return texts.findIndex((text) => /[\t\n\r]/.test(text));
}

/** The texts a row refers to by number. */
export interface MinedTexts {
  queries: readonly string[];
  documents: readonly string[];
}

function tsvHeader(format: OutputFormat, numNegatives: number): string {
  const negatives = format === 'triplet' ? ['negative'] : Array.from({ length: numNegatives }, (_, i) => `negative_${i + 1}`);
  return ['query', 'positive', ...negatives].join('\t');
}

function jsonlObject(row: MinedRow, format: OutputFormat, texts: MinedTexts): Record<string, unknown> {
  const query = texts.queries[row.query];
  if (row.kind === 'pair') return { query, passage: texts.documents[row.passage], label: row.label };
  const positive = texts.documents[row.positive];
  const negatives = row.negatives.map((d) => texts.documents[d]);
  if (format === 'triplet') return { query, positive, negative: negatives[0] };
  if (format === 'labeled-list') return { query, positive, negatives, labels: row.labels };
  return { query, positive, ...Object.fromEntries(negatives.map((text, i) => [`negative_${i + 1}`, text])) };
}

/** The file's text: one line per row (after the header, for TSV); a TSV's texts were checked by firstTextBreakingTsv. */
export function formatMinedRows(
  rows: readonly MinedRow[],
  format: OutputFormat,
  kind: MinedTextKind,
  texts: MinedTexts,
  numNegatives: number,
): string {
  const lines: string[] = [];
  if (kind === 'tsv') {
    const problem = tsvFormatProblem(format);
    if (problem) throw new Error(`--output_format ${format} cannot be written as TSV: ${problem}`);
    lines.push(tsvHeader(format, numNegatives));
    for (const row of rows) {
      if (row.kind !== 'tuple') continue;
      lines.push(
        [texts.queries[row.query], texts.documents[row.positive], ...row.negatives.map((d) => texts.documents[d])].join('\t'),
      );
    }
  } else for (const row of rows) lines.push(JSON.stringify(jsonlObject(row, format, texts)));
  return lines.length ? lines.join('\n') + '\n' : '';
}

// The triplets a hand-off project trains on, from any local file `train` reads: a TSV copied byte for byte, or the
// rows of a JSON Lines or Parquet file written as the TSV the project's splade_data.py reads (a header, then query,
// positive, negative and the teacher labels), read back and checked to be the same rows; one negative per row.
import { InvalidRequestError } from '../../contract/limits.ts';
import type { TripletFormat } from '../../contract/training/data-sources.ts';
import { memoryFile } from '../../io/random-access.ts';
import { parseTripletsJsonl } from '../../io/triplets/triplets-jsonl.ts';
import { readParquetTriplets } from '../../io/triplets/triplets-parquet.ts';
import { parseTriplets, rowNegatives, type Triplet } from '../../io/triplets/triplets.ts';
import { readTrainingData, tripletFormat, type ReadTrainingData } from '../training/training-data.ts';

export interface HandoffTriplets extends ReadTrainingData {
  /** The TSV the project gets (the file itself when it was TSV). */
  bytes: Uint8Array;
  /** The file's own format, when it was not TSV and its rows were written as TSV. */
  convertedFrom?: Exclude<TripletFormat, 'tsv'>;
}

const FORMAT_NAMES = { jsonl: 'JSON Lines', parquet: 'Parquet' } as const;

/** The triplets of `bytes` (a file named `name`) as the hand-off project reads them: TSV, one negative per row. */
export async function handoffTriplets(bytes: Uint8Array, name: string): Promise<HandoffTriplets> {
  const format = tripletFormat(bytes, name);
  if (format === 'tsv') return checkedOneNegative(readTrainingData(bytes, name), name);
  const rows =
    format === 'parquet' ? await readParquetTriplets(memoryFile(bytes, name)) : parseTripletsJsonl(bytes, name).triplets;
  const tsvName = `${name.replace(/\.(jsonl|ndjson|parquet)$/i, '')}.tsv`;
  const tsv = tsvOf(rows, name, FORMAT_NAMES[format]);
  sameRows(rows, parseTriplets(tsv, tsvName).triplets, name, FORMAT_NAMES[format]);
  return { ...checkedOneNegative(readTrainingData(tsv, tsvName), name), convertedFrom: format };
}

function checkedOneNegative<T extends ReadTrainingData>(read: T, name: string): T {
  const { negatives } = read.data.source;
  if (negatives !== 1)
    throw new InvalidRequestError(
      `the hand-off takes one negative per row (its train.py and check_step1.py do); ${name} has ${negatives} per row: keep the first negative of each row`,
    );
  return read;
}

/** The rows as TSV: a header (the labels' column when the rows have labels), then one line per row. */
function tsvOf(rows: readonly Triplet[], name: string, format: string): Uint8Array {
  const labelled = rows.some((row) => row.label !== undefined);
  const lines = [['query', 'positive', 'negative', ...(labelled ? ['label'] : [])].join('\t')];
  rows.forEach((row, i) => {
    const fields = [row.query, row.positive, ...rowNegatives(row)];
    const bad = fields.findIndex((field) => /[\t\n\r]/.test(field));
    if (bad >= 0)
      throw new InvalidRequestError(
        `${name} row ${i + 1}: its ${['query', 'positive', 'negative'][Math.min(bad, 2)]} holds a tab or a line break, which the hand-off project's TSV cannot hold (${format} rows are written as TSV): replace them with spaces`,
      );
    if (labelled && row.label === undefined)
      throw new InvalidRequestError(`${name} row ${i + 1} has no teacher label, though other rows have: give every row one`);
    if (row.label) fields.push(row.label.length === 1 ? String(row.label[0]) : JSON.stringify(row.label));
    lines.push(fields.join('\t'));
  });
  return new TextEncoder().encode(lines.join('\n') + '\n');
}

/** Refuses TSV rows that read back other than the rows written (a safety net: tsvOf should never lose anything). */
function sameRows(rows: readonly Triplet[], read: readonly Triplet[], name: string, format: string): void {
  const text = (row: Triplet) => JSON.stringify([row.query, row.positive, rowNegatives(row), row.label ?? null]);
  const differs = rows.findIndex((row, i) => read[i] === undefined || text(row) !== text(read[i]));
  if (differs >= 0 || read.length !== rows.length)
    throw new InvalidRequestError(
      `${name} row ${(differs >= 0 ? differs : rows.length) + 1} does not read back the same when written as TSV for the hand-off project (${format} rows are written as TSV): write the file as TSV yourself`,
    );
}

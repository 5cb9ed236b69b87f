// Training triplets from a TSV file (query<TAB>positive<TAB>negative per line, MS MARCO style), strictly checked:
// strict UTF-8 (a bad byte or a UTF-16 file is an error naming file and line), then every line.
import { readRequiredFile, type FileSource, type ReadOptions } from './file-source.ts';
import { splitLines } from './line-breaks.ts';
import { textOf } from './text-decode.ts';

export interface Triplet {
  query: string;
  positive: string;
  negative: string;
  /** A row's further negatives (sentence-transformers' negative_2, ...): every row of a file has as many. */
  extraNegatives?: string[];
  /**
   * Teacher labels (sentence-transformers' `label` column), for distillation: one margin per negative
   * (score(q, pos) - score(q, neg_i)), or the n + 1 scores [pos, neg_1..n]; which one, the loss decides.
   */
  label?: number[];
}

/** Negatives of a row: its negative, then its further ones. */
export function rowNegatives(triplet: Triplet): string[] {
  return triplet.extraNegatives ? [triplet.negative, ...triplet.extraNegatives] : [triplet.negative];
}

export interface TripletFile {
  triplets: Triplet[];
  /** Blank (or whitespace-only) lines, skipped and counted; nothing else is ever skipped. */
  blankLines: number;
  /** True when the first line was a `query<TAB>positive<TAB>negative` header (skipped). */
  header: boolean;
}

/** A line that is not a triplet: names the file and the 1-based line number. */
export class TripletFormatError extends Error {
  override name = 'TripletFormatError';
  constructor(
    readonly file: string,
    readonly line: number,
    problem: string,
  ) {
    super(`${file} line ${line}: ${problem}`);
  }
}

const FIELDS = ['query', 'positive', 'negative'] as const;

export function preview(text: string): string {
  return JSON.stringify(text.length > 60 ? text.slice(0, 60) + '…' : text);
}

/** A triplet from its query, positive and one or more negatives. */
export function tripletOf(query: string, positive: string, negatives: readonly string[]): Triplet {
  return negatives.length > 1
    ? { query, positive, negative: negatives[0], extraNegatives: negatives.slice(1) }
    : { query, positive, negative: negatives[0] };
}

/** What one line of a file is: a row, a header, or nothing (blank). */
export type LineResult = { kind: 'row'; triplet: Triplet } | { kind: 'header' } | { kind: 'blank' };

/**
 * One TSV line (without its line break): query, positive and one or more negatives, tab-separated; `first` says
 * whether it is the file's first line (a `query<TAB>positive<TAB>negative...` header there is skipped).
 */
export function parseTsvLine(line: string, file: string, lineNumber: number, first: boolean): LineResult {
  if (line.endsWith('\r')) line = line.slice(0, -1);
  if (line.trim() === '') return { kind: 'blank' };
  const fields = line.split('\t');
  if (fields.length < 3) {
    throw new TripletFormatError(
      file,
      lineNumber,
      `${fields.length} tab-separated field${fields.length === 1 ? '' : 's'}, expected 3 (query, positive, negative) or more (further negatives): ${preview(line)}`,
    );
  }
  const name = (j: number) => (j < 2 ? FIELDS[j] : j === 2 ? 'negative' : `negative ${j - 1}`);
  const headerName = (f: string, j: number) => {
    const word = f.trim().toLowerCase();
    return j < 2 ? word === FIELDS[j] : /^negative(_?\d+)?$/.test(word);
  };
  if (first && fields.every(headerName)) return { kind: 'header' };
  fields.forEach((field, j) => {
    if (field.trim() === '') throw new TripletFormatError(file, lineNumber, `the ${name(j)} (field ${j + 1}) is empty`);
  });
  return { kind: 'row', triplet: tripletOf(fields[0], fields[1], fields.slice(2)) };
}

/** Checks that a row has as many negatives as the file's first row (a batch takes the same number from each). */
export function checkNegatives(triplet: Triplet, expected: number | null, file: string, lineNumber: number): number {
  const count = 1 + (triplet.extraNegatives?.length ?? 0);
  if (expected !== null && count !== expected) {
    throw new TripletFormatError(
      file,
      lineNumber,
      `${count} negative${count === 1 ? '' : 's'}, but the first row has ${expected}: every row needs as many`,
    );
  }
  return count;
}

/**
 * Parses triplet TSV text, or bytes decoded as strict UTF-8 (decodeUtf8Strict: invalid bytes are a TextDecodeError
 * naming `file` and the line). Lines end in \n, \r\n or a lone \r (line-breaks.ts); a leading byte-order mark is dropped; fields are kept as
 * they are (no trimming, no unquoting: MS MARCO files have no quoting). A line with fewer than three fields, with an
 * empty field, or with another number of negatives than the first row, is an error naming `file` and the line.
 */
export function parseTriplets(content: string | Uint8Array, file: string): TripletFile {
  const lines = splitLines(textOf(content, file).replace(/^\uFEFF/, ''));
  const triplets: Triplet[] = [];
  let blankLines = 0;
  let header = false;
  let negatives: number | null = null;
  lines.forEach((raw, i) => {
    const result = parseTsvLine(raw, file, i + 1, i === 0);
    if (result.kind === 'blank') {
      if (i < lines.length - 1) blankLines++; // the empty string after a final newline is not a line
    } else if (result.kind === 'header') {
      header = true;
    } else {
      negatives = checkNegatives(result.triplet, negatives, file, i + 1);
      triplets.push(result.triplet);
    }
  });
  if (triplets.length === 0) throw new Error(`${file}: no triplets (a line is query<TAB>positive<TAB>negative)`);
  return { triplets, blankLines, header };
}

/** Reads and parses a triplet file of a source (strict UTF-8: a bad byte is an error naming the file and line). */
export async function readTriplets(source: FileSource, name: string, options?: ReadOptions): Promise<TripletFile> {
  const bytes = await readRequiredFile(source, name, options);
  return parseTriplets(bytes, `${source.label}/${name}`);
}

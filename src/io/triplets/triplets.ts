// Training triplets from a TSV file (query<TAB>positive<TAB>negative per line, MS MARCO style; a header may add teacher
// labels), strictly checked: strict UTF-8 (a bad byte or a UTF-16 file is an error naming file and line), then every line.
import { TEACHER_LABEL_COLUMNS, TEACHER_LABEL_NAMES } from '../../contract/training/teacher-labels.ts';
import { readRequiredFile, type FileSource, type ReadOptions } from '../file-source.ts';
import { splitLines } from '../line-breaks.ts';
import { textOf } from '../text-decode.ts';

export interface Triplet {
  query: string;
  positive: string;
  negative: string;
  /** A row's further negatives (sentence-transformers' negative_2, ...): every row of a file has as many. */
  extraNegatives?: string[];
  /**
   * Teacher labels (sentence-transformers' `label` column, or `labels`, `score`, `scores`), for distillation: one
   * margin per negative (score(q, pos) - score(q, neg_i)), or the n + 1 scores [pos, neg_1..n]; which one, the loss
   * decides.
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
  /** True when the first line was a header (`query<TAB>positive<TAB>negative`, maybe labels: tsvHeader), skipped. */
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

/** `n` `word`s, in the singular for one. */
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function preview(text: string): string {
  return JSON.stringify(text.length > 60 ? text.slice(0, 60) + '…' : text);
}

/** A triplet from its query, positive and one or more negatives. */
export function tripletOf(query: string, positive: string, negatives: readonly string[]): Triplet {
  return negatives.length > 1
    ? { query, positive, negative: negatives[0], extraNegatives: negatives.slice(1) }
    : { query, positive, negative: negatives[0] };
}

/** The columns a TSV header names, in sentence-transformers' terms: query (or anchor), positive, negatives, labels. */
export interface TsvColumns {
  negatives: number;
  /**
   * Label fields after the negatives: 0 (none), `label` (one: a number or a JSON list of numbers, in a column the
   * header names label, labels, score or scores), or m (label_1..m).
   */
  labels: number | 'label';
  /** The header's name of the one label column (errors name it). */
  column?: string;
}

/** What one line of a file is: a row, a header (with the columns it names, for TSV), or nothing (blank). */
export type LineResult = { kind: 'row'; triplet: Triplet } | { kind: 'header'; columns?: TsvColumns } | { kind: 'blank' };

const NEGATIVE_NAME = /^negative(_?\d+)?$/;
const LABEL_NAME = /^(label(_\d+)?|labels|scores?)$/;

/**
 * The columns a first line names, or null when it is a row: `query` or `anchor`, `positive`, `negative` (or
 * negative_1..n), then optionally one label column (`label`, `labels`, `score` or `scores`, sentence-transformers'
 * names) or label_1..m (case and spaces aside). Label names out of order, or several, are an error.
 */
export function tsvHeader(fields: readonly string[], file: string): TsvColumns | null {
  const words = fields.map((field) => field.trim().toLowerCase());
  if (!['query', 'anchor'].includes(words[0]) || words[1] !== 'positive') return null;
  let end = 2;
  while (end < words.length && NEGATIVE_NAME.test(words[end])) end++;
  const negatives = end - 2;
  const labels = words.slice(end);
  if (negatives === 0 || !labels.every((word) => LABEL_NAME.test(word))) return null;
  const one = labels.length === 1 && (TEACHER_LABEL_COLUMNS as readonly string[]).includes(labels[0]);
  if (one) return { negatives, labels: 'label', column: labels[0] };
  if (labels.every((word, i) => word === `label_${i + 1}`)) return { negatives, labels: labels.length };
  throw new TripletFormatError(
    file,
    1,
    `the header names the labels ${labels.join(', ')}: name one ${TEACHER_LABEL_NAMES} column (a number or a JSON list such as [1.5, -2] per row) or label_1, label_2, ... in order`,
  );
}

/** A JSON number, as sentence-transformers writes a score (no NaN, Infinity, hex or empty text). */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** A label field as a finite number, or null. */
function labelNumber(text: string): number | null {
  const number = Number(text.trim());
  return JSON_NUMBER.test(text.trim()) && Number.isFinite(number) ? number : null;
}

/** A row's label fields (after its negatives) as teacher labels; a field that is not a finite number names the line. */
function tsvLabels(fields: readonly string[], columns: TsvColumns, first: number, file: string, lineNumber: number): number[] {
  const refuse = (j: number, what: string): never => {
    const name = columns.labels === 'label' ? (columns.column ?? 'label') : `label_${j + 1}`;
    throw new TripletFormatError(file, lineNumber, `the ${name} (field ${first + j + 1}) is ${preview(fields[j])}, not ${what}`);
  };
  if (columns.labels === 'label' && fields[0].trim().startsWith('[')) {
    const what = 'a JSON list of finite numbers (teacher scores) such as [1.5, -2]';
    let list: unknown;
    try {
      list = JSON.parse(fields[0]);
    } catch {
      return refuse(0, what);
    }
    const ok = Array.isArray(list) && list.length > 0 && list.every((x) => typeof x === 'number' && Number.isFinite(x));
    return ok ? (list as number[]) : refuse(0, what);
  }
  const what = `a finite number (a teacher score)${columns.labels === 'label' ? ' or a JSON list of them' : ''}`;
  return fields.map((field, j) => labelNumber(field) ?? refuse(j, what));
}

/**
 * One TSV line (without its line break): query, positive and one or more negatives, tab-separated; `first` says
 * whether it is the file's first line (a header there is skipped: tsvHeader); `columns`, the header's, when it names
 * labels: then every row has exactly its fields, the labels last.
 */
export function parseTsvLine(
  line: string,
  file: string,
  lineNumber: number,
  first: boolean,
  columns: TsvColumns | null = null,
): LineResult {
  if (line.endsWith('\r')) line = line.slice(0, -1);
  if (line.trim() === '') return { kind: 'blank' };
  const fields = line.split('\t');
  const texts = columns?.labels ? 2 + columns.negatives : fields.length;
  if (columns?.labels) {
    const labels = columns.labels === 'label' ? 1 : columns.labels;
    if (fields.length !== texts + labels)
      throw new TripletFormatError(
        file,
        lineNumber,
        `${plural(fields.length, 'tab-separated field')}, but the header names ${texts + labels} (query, positive, ${plural(columns.negatives, 'negative')}, then ${plural(labels, 'label field')}): ${preview(line)}`,
      );
  } else if (fields.length < 3) {
    throw new TripletFormatError(
      file,
      lineNumber,
      `${plural(fields.length, 'tab-separated field')}, expected 3 (query, positive, negative) or more (further negatives): ${preview(line)}`,
    );
  }
  const name = (j: number) => (j < 2 ? FIELDS[j] : j === 2 ? 'negative' : `negative ${j - 1}`);
  const header = first ? tsvHeader(fields, file) : null;
  if (header) return { kind: 'header', columns: header };
  fields.slice(0, texts).forEach((field, j) => {
    if (field.trim() === '') throw new TripletFormatError(file, lineNumber, `the ${name(j)} (field ${j + 1}) is empty`);
  });
  const triplet = tripletOf(fields[0], fields[1], fields.slice(2, texts));
  if (columns?.labels) triplet.label = tsvLabels(fields.slice(texts), columns, texts, file, lineNumber);
  return { kind: 'row', triplet };
}

/**
 * A parser of one TSV file's lines (line 1 first): it keeps the columns a header on line 1 names for every later row,
 * also a row parsed again when an indexed file is read back (triplet-index.ts).
 */
export function tsvLineParser(): (line: string, file: string, lineNumber: number) => LineResult {
  let columns: TsvColumns | null = null;
  return (line, file, lineNumber) => {
    const result = parseTsvLine(line, file, lineNumber, lineNumber === 1, columns);
    if (result.kind === 'header') columns = result.columns ?? null;
    return result;
  };
}

/** Checks that a row has as many negatives as the file's first row (a batch takes the same number from each). */
export function checkNegatives(triplet: Triplet, expected: number | null, file: string, lineNumber: number): number {
  const count = 1 + (triplet.extraNegatives?.length ?? 0);
  if (expected !== null && count !== expected) {
    throw new TripletFormatError(
      file,
      lineNumber,
      `${plural(count, 'negative')}, but the first row has ${expected}: every row needs as many`,
    );
  }
  return count;
}

/**
 * Parses triplet TSV text, or bytes decoded as strict UTF-8 (decodeUtf8Strict: invalid bytes are a TextDecodeError
 * naming `file` and the line). Lines end in \n, \r\n or a lone \r (line-breaks.ts); a leading byte-order mark is dropped; fields are kept as
 * they are (no trimming, no unquoting: MS MARCO files have no quoting). A line with fewer than three fields, with an
 * empty field, or with another number of negatives than the first row, is an error naming `file` and the line; after a
 * header naming labels (tsvHeader), so is a row with other fields than it names or a label that is not a finite number.
 */
export function parseTriplets(content: string | Uint8Array, file: string): TripletFile {
  const lines = splitLines(textOf(content, file).replace(/^\uFEFF/, ''));
  const triplets: Triplet[] = [];
  let blankLines = 0;
  let header = false;
  let negatives: number | null = null;
  const parse = tsvLineParser();
  lines.forEach((raw, i) => {
    const result = parse(raw, file, i + 1);
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

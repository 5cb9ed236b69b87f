// Training triplets from JSON Lines: one object per line with `query` (or sentence-transformers' `anchor`),
// `positive` and one or more negatives; strict UTF-8; every problem names the file and the line.
import { TEACHER_LABEL_COLUMNS } from '../../contract/training/teacher-labels.ts';
import { describeJsonValue } from '../../util/json-value.ts';
import { splitLines } from '../line-breaks.ts';
import { textOf } from '../text-decode.ts';
import { TripletFormatError, checkNegatives, tripletOf, type LineResult, type Triplet, type TripletFile } from './triplets.ts';

/** sentence-transformers' names of further negatives: negative_1, negative_2, ... */
const NUMBERED_NEGATIVE = /^negative_(\d+)$/;

function text(value: unknown, name: string, file: string, line: number): string {
  if (typeof value !== 'string')
    throw new TripletFormatError(file, line, `${name} must be a string, got ${describeJsonValue(value)}`);
  if (value.trim() === '') throw new TripletFormatError(file, line, `${name} is empty`);
  return value;
}

function field(object: Record<string, unknown>, key: string, file: string, line: number): string {
  return text(object[key], `"${key}"`, file, line);
}

/** A row's negatives: `negative`, then `negative_1`, `negative_2`, ... in number order; or a `negatives` list. */
function negativesOf(object: Record<string, unknown>, file: string, line: number): string[] {
  const numbered = Object.keys(object)
    .map((key) => NUMBERED_NEGATIVE.exec(key))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => m[0]);
  const list = object.negatives;
  if (list !== undefined) {
    if ('negative' in object || numbered.length)
      throw new TripletFormatError(file, line, 'give "negatives" (a list) or "negative" (and "negative_1", ...), not both');
    if (!Array.isArray(list) || list.length === 0)
      throw new TripletFormatError(file, line, '"negatives" must be a non-empty list of strings');
    return list.map((value: unknown, i) => text(value, `"negatives"[${i}]`, file, line));
  }
  const keys = 'negative' in object ? ['negative', ...numbered] : numbered;
  if (keys.length === 0) throw new TripletFormatError(file, line, '"negative" must be a string, got nothing');
  return keys.map((key) => field(object, key, file, line));
}

/** A JSONL line as its JSON object (`shape` names the keys the caller wants, for the error), or an error naming the line. */
export function jsonObjectLine(raw: string, file: string, line: number, shape: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new TripletFormatError(file, line, `not JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new TripletFormatError(file, line, `a line must be one JSON object${shape ? ` ${shape}` : ''}`);
  return parsed as Record<string, unknown>;
}

/** The key a line's query is under: sentence-transformers' "anchor" or our "query", never both. */
export function queryKeyOf(object: Record<string, unknown>, file: string, line: number): 'anchor' | 'query' {
  if ('query' in object && 'anchor' in object) throw new TripletFormatError(file, line, 'give "query" or "anchor", not both');
  return 'anchor' in object ? 'anchor' : 'query';
}

/**
 * One JSONL line: an object with the query as `query` or `anchor` (not both), `positive`, and one or more negatives
 * (`negative`, `negative_1`, ... or a `negatives` list), and optionally teacher scores as `label` (or `labels`,
 * `score`, `scores`: sentence-transformers' names, one of them); other keys are ignored.
 */
export function parseJsonlLine(raw: string, file: string, line: number): LineResult {
  if (raw.trim() === '') return { kind: 'blank' };
  const object = jsonObjectLine(raw, file, line, '');
  const queryKey = queryKeyOf(object, file, line);
  const triplet = tripletOf(
    field(object, queryKey, file, line),
    field(object, 'positive', file, line),
    negativesOf(object, file, line),
  );
  const labelKeys = TEACHER_LABEL_COLUMNS.filter((key) => key in object);
  if (labelKeys.length > 1)
    throw new TripletFormatError(
      file,
      line,
      `give the teacher labels once: ${labelKeys.map((key) => `"${key}"`).join(' and ')} are the same column`,
    );
  if (labelKeys.length) triplet.label = teacherLabel(object[labelKeys[0]], file, line, labelKeys[0]);
  return { kind: 'row', triplet };
}

/** A row's `label` (or `key`): a finite number or a non-empty list of finite numbers (teacher margins or scores). */
export function teacherLabel(value: unknown, file: string, line: number, key = 'label'): number[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || !list.every((x) => typeof x === 'number' && Number.isFinite(x)))
    throw new TripletFormatError(
      file,
      line,
      `"${key}" must be a finite number or a list of finite numbers (teacher scores), got ${describeJsonValue(value)}`,
    );
  return list as number[];
}

/** Parses JSONL triplets (see parseJsonlLine); every row needs as many negatives as the first. */
export function parseTripletsJsonl(content: string | Uint8Array, file: string): TripletFile {
  const lines = splitLines(textOf(content, file).replace(/^\uFEFF/, ''));
  const triplets: Triplet[] = [];
  let blankLines = 0;
  let negatives: number | null = null;
  lines.forEach((raw, i) => {
    const result = parseJsonlLine(raw, file, i + 1);
    if (result.kind === 'blank') {
      if (i < lines.length - 1) blankLines++;
    } else if (result.kind === 'row') {
      negatives = checkNegatives(result.triplet, negatives, file, i + 1);
      triplets.push(result.triplet);
    }
  });
  if (triplets.length === 0) throw new Error(`${file}: no triplets (a line is {"query": ..., "positive": ..., "negative": ...})`);
  return { triplets, blankLines, header: false };
}

// Training triplets from JSON Lines: one object per line with `query` (or sentence-transformers' `anchor`),
// `positive` and `negative` strings; strict UTF-8; every problem names the file and the line.
import { textOf } from './text-decode.ts';
import { TripletFormatError, type Triplet, type TripletFile } from './triplets.ts';

const SEVERAL_NEGATIVES = /^negative_\d+$|^negatives$/;

function field(object: Record<string, unknown>, key: string, file: string, line: number): string {
  const value = object[key];
  if (typeof value !== 'string') throw new TripletFormatError(file, line, `"${key}" must be a string, got ${value === undefined ? 'nothing' : JSON.stringify(value).slice(0, 40)}`);
  if (value.trim() === '') throw new TripletFormatError(file, line, `"${key}" is empty`);
  return value;
}

/**
 * Parses JSONL triplets. The query is `query` or `anchor` (not both); other keys are ignored, except several
 * negatives (`negative_1`, `negative_2`, ... or a `negatives` list), which are refused: a batch takes one negative per
 * query for now.
 */
export function parseTripletsJsonl(content: string | Uint8Array, file: string): TripletFile {
  const lines = textOf(content, file).replace(/^\uFEFF/, '').split('\n');
  const triplets: Triplet[] = [];
  let blankLines = 0;
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') {
      if (i < lines.length - 1) blankLines++;
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      throw new TripletFormatError(file, line, `not JSON (${(error as Error).message})`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new TripletFormatError(file, line, 'a line must be one JSON object');
    const object = parsed as Record<string, unknown>;
    const several = Object.keys(object).filter((key) => SEVERAL_NEGATIVES.test(key));
    if (several.length) {
      throw new TripletFormatError(file, line, `several negatives (${several.join(', ')}) are not read yet: give one "negative" per line`);
    }
    if ('query' in object && 'anchor' in object) throw new TripletFormatError(file, line, 'give "query" or "anchor", not both');
    const queryKey = 'anchor' in object ? 'anchor' : 'query';
    triplets.push({ query: field(object, queryKey, file, line), positive: field(object, 'positive', file, line), negative: field(object, 'negative', file, line) });
  });
  if (triplets.length === 0) throw new Error(`${file}: no triplets (a line is {"query": ..., "positive": ..., "negative": ...})`);
  return { triplets, blankLines, header: false };
}

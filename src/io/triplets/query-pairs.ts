// Query-positive pairs, the input of sentence-transformers' mine_hard_negatives: TSV (query<TAB>positive per line, an
// optional header naming query or anchor, then positive) or JSON Lines ({"query" or "anchor", "positive"}); strict
// UTF-8; every problem names the file and the line.
import { describeJsonValue } from '../../util/json-value.ts';
import { splitLines } from '../line-breaks.ts';
import { textOf } from '../text-decode.ts';
import { preview, TripletFormatError } from './triplets.ts';
import { jsonObjectLine, queryKeyOf } from './triplets-jsonl.ts';

export interface QueryPair {
  query: string;
  positive: string;
  /** 1-based line of the file. */
  line: number;
}

function nonEmpty(value: unknown, name: string, file: string, line: number): string {
  if (typeof value !== 'string')
    throw new TripletFormatError(file, line, `${name} must be a string, got ${describeJsonValue(value)}`);
  if (value.trim() === '') throw new TripletFormatError(file, line, `${name} is empty`);
  return value;
}

function jsonlPair(raw: string, file: string, line: number): QueryPair {
  const object = jsonObjectLine(raw, file, line, '{"query", "positive"}');
  const key = queryKeyOf(object, file, line);
  return {
    query: nonEmpty(object[key], `"${key}"`, file, line),
    positive: nonEmpty(object.positive, '"positive"', file, line),
    line,
  };
}

const HEADER = /^(query|anchor)\tpositive$/i;

function tsvPair(raw: string, file: string, line: number): QueryPair {
  const fields = raw.split('\t');
  if (fields.length !== 2)
    throw new TripletFormatError(
      file,
      line,
      `${fields.length} tab-separated fields, expected 2 (query, positive): ${preview(raw)}`,
    );
  return {
    query: nonEmpty(fields[0], 'the query (field 1)', file, line),
    positive: nonEmpty(fields[1], 'the positive (field 2)', file, line),
    line,
  };
}

/** Parses pairs as JSON Lines or TSV (`jsonl`: which); blank lines are skipped; no pair at all is an error. */
export function parseQueryPairs(content: string | Uint8Array, file: string, jsonl: boolean): QueryPair[] {
  const lines = splitLines(textOf(content, file).replace(/^\uFEFF/, ''));
  const pairs: QueryPair[] = [];
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    if (!jsonl && i === 0 && HEADER.test(raw.trim())) return;
    pairs.push(jsonl ? jsonlPair(raw, file, i + 1) : tsvPair(raw, file, i + 1));
  });
  if (pairs.length === 0)
    throw new Error(
      `${file}: no query-positive pairs (a line is ${jsonl ? '{"query": ..., "positive": ...}' : 'query<TAB>positive'})`,
    );
  return pairs;
}

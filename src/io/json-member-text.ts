// The source text of one member of a JSON object, for ids written as numbers: JSON.parse turns 12345678901234567890
// and 12345678901234567891 into one float64 and 1e400 into Infinity (Node 20 has no reviver `context.source`).
import { ownCopy } from '../util/own-copy.ts';

const WHITE_SPACE = new Set([' ', '\t', '\n', '\r']);

/** Index of the first character at or after `i` that is not JSON white space. */
function skipWhiteSpace(json: string, i: number): number {
  while (i < json.length && WHITE_SPACE.has(json[i])) i++;
  return i;
}

/** Index just past the string that opens at `i` (a `"`): the first quote after it not escaped by a backslash. */
function skipString(json: string, i: number): number {
  for (let from = i + 1; ;) {
    const quote = json.indexOf('"', from);
    if (quote < 0) return json.length;
    let backslashes = 0;
    while (json[quote - 1 - backslashes] === '\\') backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Index just past the value that starts at `i`: a string, an object or array (nesting counted, not recursed), or a literal. */
function skipValue(json: string, i: number): number {
  if (json[i] === '"') return skipString(json, i);
  if (json[i] === '{' || json[i] === '[') {
    let depth = 0;
    while (i < json.length) {
      const c = json[i];
      if (c === '"') {
        i = skipString(json, i);
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
      i++;
      if (depth === 0) return i;
    }
    return i;
  }
  while (i < json.length && !WHITE_SPACE.has(json[i]) && json[i] !== ',' && json[i] !== '}' && json[i] !== ']') i++;
  return i;
}

/**
 * The source text of the value of member `key` of the JSON object `json` (the last one when the key repeats, as
 * JSON.parse keeps), or undefined when there is none; a string of its own, not a slice of `json`. `json` must be text
 * JSON.parse has accepted.
 */
export function memberSourceText(json: string, key: string): string | undefined {
  let found: string | undefined;
  let i = skipWhiteSpace(json, 0);
  if (json[i] !== '{') return undefined;
  i = skipWhiteSpace(json, i + 1);
  while (i < json.length && json[i] === '"') {
    const keyEnd = skipString(json, i);
    const raw = json.slice(i + 1, keyEnd - 1);
    const name = raw.includes('\\') ? (JSON.parse(json.slice(i, keyEnd)) as string) : raw;
    const start = skipWhiteSpace(json, skipWhiteSpace(json, keyEnd) + 1); // past the ':'
    const end = skipValue(json, start);
    if (name === key) found = ownCopy(json.slice(start, end));
    i = skipWhiteSpace(json, end);
    if (json[i] === ',') i = skipWhiteSpace(json, i + 1);
  }
  return found;
}

// The score progress file's text: scores come back bit for bit (NaN, ±Infinity and float64 values with 17 digits
// included), a last line cut short is left out and its bytes not counted, a damaged line before it is refused.
import { describe, expect, it } from 'vitest';
import {
  formatProgressHeader,
  formatProgressRecord,
  identityDifferences,
  parseScoreProgress,
  type ScoreProgressIdentity,
} from '../../../src/io/score-progress-text.ts';

const IDENTITY: ScoreProgressIdentity = {
  teacher: { ref: 'cross-encoder/x', sha256: 'a'.repeat(64) },
  input: { path: 'rows.tsv', bytes: 120, sha256: 'b'.repeat(64) },
  maxLength: 512,
  batch: 32,
  labelRule: 'logit 1 - logit 0',
  pairs: 10,
};
const bytes = (text: string) => new TextEncoder().encode(text);

describe('score progress text', () => {
  it('gives back every recorded score exactly, the later record of a pair winning', () => {
    const scores = [0.1 + 0.2, -1.2345678901234568e-7 / 3, Math.fround(3.7) - Math.fround(1.1), NaN, Infinity, -Infinity];
    const text =
      formatProgressHeader(IDENTITY) + formatProgressRecord([0, 1, 2, 3, 4, 5], scores) + formatProgressRecord([9, 0], [7, 8]);
    const read = parseScoreProgress(bytes(text), 'p.jsonl')!;
    expect(read.identity).toEqual(IDENTITY);
    expect(read.torn).toBe(false);
    expect(read.wholeBytes).toBe(bytes(text).length);
    expect([1, 2, 3, 4, 5].map((pair) => read.scores.get(pair))).toEqual(scores.slice(1));
    expect(Object.is(read.scores.get(3), NaN)).toBe(true);
    expect([read.scores.get(0), read.scores.get(9)]).toEqual([8, 7]);
  });

  it.each([
    ['cut short', '{"pairs":[4,5],"sco'],
    ['cut short at a number', '{"pairs":[4,5],"scores":[1.5,2'],
    ['whole but not a record', 'xx\n'],
    ['naming a pair past the last', '{"pairs":[10],"scores":[1]}\n'],
  ])('leaves out a last line %s and counts only the whole ones', (_, tail) => {
    const whole = formatProgressHeader(IDENTITY) + formatProgressRecord([0, 1], [0.5, 0.25]);
    const read = parseScoreProgress(bytes(whole + tail), 'p.jsonl')!;
    expect(read.torn).toBe(true);
    expect(read.wholeBytes).toBe(bytes(whole).length);
    expect([...read.scores]).toEqual([
      [0, 0.5],
      [1, 0.25],
    ]);
  });

  it('refuses a damaged line before the last, a file of another kind, and takes no first line as nothing scored', () => {
    const header = formatProgressHeader(IDENTITY);
    const damaged = header + '{"pairs":[0],"scores":["x"]}\n' + formatProgressRecord([1], [1]);
    expect(() => parseScoreProgress(bytes(damaged), 'p.jsonl')).toThrow(/p\.jsonl: line 2 is not a record .*--restart/);
    expect(() => parseScoreProgress(bytes('{"a":1}\n'), 'p.jsonl')).toThrow(/p\.jsonl: line 1 is not the first line/);
    expect(parseScoreProgress(bytes(header.slice(0, 20)), 'p.jsonl')).toBeNull();
  });

  it('names each field that differs, paths aside', () => {
    expect(identityDifferences(IDENTITY, { ...IDENTITY, input: { ...IDENTITY.input, path: 'moved/rows.tsv' } })).toEqual([]);
    const other = { ...IDENTITY, maxLength: 256, input: { ...IDENTITY.input, bytes: 121, sha256: 'c'.repeat(64) } };
    expect(identityDifferences(IDENTITY, other)).toEqual([
      `the --in file: rows.tsv (120 bytes, SHA-256 bbbbbbbbbbbb…) then, rows.tsv (121 bytes, SHA-256 cccccccccccc…) now`,
      '--max-length: 512 then, 256 now',
    ]);
  });
});

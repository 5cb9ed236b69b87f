// The text of `splade-lab score`'s progress file: a first line naming what its scores belong to (teacher, input,
// --max-length, --batch, the label rule), then one JSON line per scored batch (pair indices and exact scores); read back
// up to its last whole line, so that a write a kill cut short costs that one batch and nothing else.

/** The first line's `format`: a file without it is no progress file of this version. */
export const SCORE_PROGRESS_FORMAT = 'splade-lab score progress 1';

/** What a progress file's scores belong to; two runs may share scores only when every field is equal. */
export interface ScoreProgressIdentity {
  /** The teacher as given (shown in messages) and the SHA-256 of what it computes with (compared). */
  teacher: { ref: string; sha256: string };
  /** The rows file as given (shown), its size and SHA-256 (compared). */
  input: { path: string; bytes: number; sha256: string };
  maxLength: number;
  /** --batch: a pair's last float bits can depend on the batch it runs in, so batches are replayed as they were. */
  batch: number;
  labelRule: string;
  pairs: number;
}

/** A progress file read back: its identity, the scores by pair index, and how many of its bytes are whole lines. */
export interface ScoreProgress {
  identity: ScoreProgressIdentity;
  scores: Map<number, number>;
  /** Bytes up to the end of the last whole record: what a writer keeps before appending. */
  wholeBytes: number;
  /** A last line cut short (or not a record) was left out. */
  torn: boolean;
}

/** The first line (with its line break). */
export function formatProgressHeader(identity: ScoreProgressIdentity): string {
  return JSON.stringify({ format: SCORE_PROGRESS_FORMAT, ...identity }) + '\n';
}

/** One batch's record (with its line break); a score that JSON cannot hold (NaN, ±Infinity) is written as a string. */
export function formatProgressRecord(pairs: readonly number[], scores: readonly number[]): string {
  const exact = scores.map((score) => (Number.isFinite(score) ? score : String(score)));
  return JSON.stringify({ pairs, scores: exact }) + '\n';
}

/**
 * The fields of `saved` that differ from `now`, each in words ("the teacher: ... then, ... now"); none when the
 * scores of `saved` are the scores `now` would compute. Paths are shown, never compared: a moved file is the same file.
 */
export function identityDifferences(saved: ScoreProgressIdentity, now: ScoreProgressIdentity): string[] {
  const differences: string[] = [];
  const differ = (what: string, then: string, current: string) => differences.push(`${what}: ${then} then, ${current} now`);
  if (saved.teacher.sha256 !== now.teacher.sha256)
    differ(
      'the teacher',
      `${saved.teacher.ref} (SHA-256 ${saved.teacher.sha256.slice(0, 12)}…)`,
      `${now.teacher.ref} (SHA-256 ${now.teacher.sha256.slice(0, 12)}…)`,
    );
  if (saved.input.sha256 !== now.input.sha256 || saved.input.bytes !== now.input.bytes)
    differ(
      'the --in file',
      `${saved.input.path} (${saved.input.bytes} bytes, SHA-256 ${saved.input.sha256.slice(0, 12)}…)`,
      `${now.input.path} (${now.input.bytes} bytes, SHA-256 ${now.input.sha256.slice(0, 12)}…)`,
    );
  if (saved.maxLength !== now.maxLength) differ('--max-length', String(saved.maxLength), String(now.maxLength));
  if (saved.batch !== now.batch) differ('--batch', String(saved.batch), String(now.batch));
  if (saved.labelRule !== now.labelRule) differ('the label rule', saved.labelRule, now.labelRule);
  if (saved.pairs !== now.pairs) differ('the pairs', String(saved.pairs), String(now.pairs));
  return differences;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first line's identity, or null when it is not a progress file's first line. */
function parseHeader(line: string): ScoreProgressIdentity | null {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObject(json) || json.format !== SCORE_PROGRESS_FORMAT) return null;
  const { teacher, input, maxLength, batch, labelRule, pairs } = json;
  const text = (value: unknown) => typeof value === 'string';
  const count = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
  if (!isObject(teacher) || !text(teacher.ref) || !text(teacher.sha256)) return null;
  if (!isObject(input) || !text(input.path) || !count(input.bytes) || !text(input.sha256)) return null;
  if (!count(maxLength) || !count(batch) || !text(labelRule) || !count(pairs)) return null;
  return {
    teacher: { ref: teacher.ref as string, sha256: teacher.sha256 as string },
    input: { path: input.path as string, bytes: input.bytes as number, sha256: input.sha256 as string },
    maxLength: maxLength as number,
    batch: batch as number,
    labelRule: labelRule as string,
    pairs: pairs as number,
  };
}

/** A record's [pair, score] entries, or null when the line is not a record of pairs below `pairs`. */
function parseRecord(line: string, pairs: number): [number, number][] | null {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObject(json) || !Array.isArray(json.pairs) || !Array.isArray(json.scores)) return null;
  const indices = json.pairs as unknown[];
  const scores = json.scores as unknown[];
  if (indices.length !== scores.length) return null;
  const entries: [number, number][] = [];
  for (let i = 0; i < indices.length; i++) {
    const pair = indices[i];
    const score = scores[i];
    if (!Number.isSafeInteger(pair) || (pair as number) < 0 || (pair as number) >= pairs) return null;
    if (typeof score === 'number') entries.push([pair as number, score]);
    else if (score === 'NaN' || score === 'Infinity' || score === '-Infinity') entries.push([pair as number, Number(score)]);
    else return null;
  }
  return entries;
}

/**
 * Reads a progress file's bytes: null when it has no whole first line (a kill while it was being made: nothing was
 * scored yet). A last line that is cut short or is no record is left out (`torn`); any other line that is no record is
 * refused naming `where` and its line, since that is damage a kill does not do.
 */
export function parseScoreProgress(bytes: Uint8Array, where: string): ScoreProgress | null {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const firstBreak = bytes.indexOf(0x0a);
  if (firstBreak < 0) return null;
  const identity = parseHeader(decoder.decode(bytes.subarray(0, firstBreak)));
  if (!identity)
    throw new Error(`${where}: line 1 is not the first line of a splade-lab score progress file (${SCORE_PROGRESS_FORMAT})`);
  const scores = new Map<number, number>();
  let start = firstBreak + 1;
  let wholeBytes = start;
  let torn = false;
  for (let line = 2; start < bytes.length; line++) {
    const end = bytes.indexOf(0x0a, start);
    const last = end < 0 || end === bytes.length - 1;
    const entries = end < 0 ? null : parseRecord(decoder.decode(bytes.subarray(start, end)), identity.pairs);
    if (!entries) {
      if (last) {
        torn = true;
        break;
      }
      throw new Error(`${where}: line ${line} is not a record of scored pairs (the file is damaged); start over with --restart`);
    }
    for (const [pair, score] of entries) scores.set(pair, score);
    start = end + 1;
    wholeBytes = start;
  }
  return { identity, scores, wholeBytes, torn };
}

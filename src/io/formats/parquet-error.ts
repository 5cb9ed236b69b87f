// The Parquet reader's one error type (names the file, the column when there is one, and what to do), and the reading
// of a number a footer or page header declares: hostile files hold any thrift type where a count belongs.
import { clip } from '../format-error.ts';

/** Advice for a file whose bytes contradict themselves. */
export const WRITE_AGAIN = 'the file is damaged or was not written by a Parquet writer: download or write it again';

/** Advice for a file whose parts lie past its end. */
export const TRUNCATED = 'the file is truncated or damaged: download or write it again';

export class ParquetFormatError extends Error {
  override name = 'ParquetFormatError';

  constructor(
    readonly file: string,
    problem: string,
    readonly column?: string,
  ) {
    super(`${clip(file, 200)}: ${column !== undefined ? `column "${clip(column, 80)}": ` : ''}${problem}`);
  }
}

/** A declared size, offset or count as a number, or null when it is not a non-negative safe integer. */
export function declaredCount(value: unknown): number | null {
  if (typeof value === 'bigint') return value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** A declared value quoted in a message: numbers as they are, anything else by its type. */
export function shown(value: unknown): string {
  if (typeof value === 'bigint' || typeof value === 'number') return clip(String(value), 40);
  if (value === undefined) return 'none given';
  return `a ${typeof value === 'object' ? (value?.constructor?.name ?? 'null') : typeof value}`;
}

/** What is wrong with a declared count of `what` that may be at most `most`, or null when nothing is. */
export function countProblem(value: unknown, what: string, most: number): string | null {
  const n = declaredCount(value);
  if (n === null) return `gives no valid number of ${what} (${shown(value)})`;
  return n > most ? `declares ${n} ${what} where at most ${most} are possible` : null;
}

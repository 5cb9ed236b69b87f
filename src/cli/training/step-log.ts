// The --log file of `splade-lab train` and `splade-lab mlm`: one JSON line per reported step, appended as the run goes
// (kept across --resume), each line naming its run first ({"run": "<the run folder's absolute path>", "event": "step",
// ...}), so that a log may be shared by several runs or hold a user's own notes. It is checked before any work (a
// regular file, or a new one in an existing folder), and a resumed run cuts back only its own lines after its
// checkpoint, so that no step is logged twice and no line of anyone else is lost: lines another process appends while
// the log is rewritten (they land in the file being replaced) are carried over into the new one.
import { constants } from 'node:fs';
import { appendFile, open, type FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkOutputFile, readRegularFile, writeFileAtomically } from '../../app/platform/platform-node.ts';

export interface StepLog {
  /** Appends one line, the run's id first (after whatever was asked before it). */
  append(line: { step: number }): void;
  /**
   * Drops this run's lines of steps after `step` (a resumed run trains them again) and a line of this run that a killed
   * process cut short; every other line (other runs', notes, older lines without a run) stays as it is. Resolves with
   * how many lines were dropped and how many of other runs or none were kept.
   */
  cutBackTo(step: number): Promise<{ dropped: number; others: number }>;
  /** Resolves once every write asked for is done (rejects with the first that failed). */
  settled(): Promise<void>;
}

/** Whether `line` is one of `run`'s, and then whether it is kept when the log is cut back to `step`. */
function ownLine(line: string, run: string, step: number): 'other' | 'keep' | 'drop' {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // a line this run began and a killed process cut short: it starts as every line of this run does
    return line.startsWith(linePrefix(run)) ? 'drop' : 'other';
  }
  const logged = value as { run?: unknown; step?: unknown } | null;
  if (typeof logged !== 'object' || logged === null || logged.run !== run) return 'other';
  return typeof logged.step === 'number' && logged.step > step ? 'drop' : 'keep';
}

/** The parts one after another. */
function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** How every line of `run` begins: its id is the first member. */
function linePrefix(run: string): string {
  return `{"run":${JSON.stringify(run)},`;
}

/** Whether the file at `path` ends without a line break (a note typed without one, a line cut short). */
async function endsMidLine(path: string): Promise<boolean> {
  const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (!handle) return false;
  try {
    const { size } = await handle.stat();
    if (size === 0) return false;
    const last = new Uint8Array(1);
    await handle.read(last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    await handle.close();
  }
}

/** How long after replacing the log it is looked at once more for a late line of another process. */
const LATE_APPEND_MS = 50;

/**
 * Appends to `path` what was appended to the replaced file `old` past `from` bytes, looking twice (at once, and after
 * LATE_APPEND_MS for a writer that opened the old file just before the rename): an appender that opens, writes and
 * closes per line (this module's own, a shell's `>>`) loses nothing; one that keeps the old file open for longer does.
 */
async function carryLateAppends(old: FileHandle, from: number, path: string): Promise<void> {
  let carried = from;
  for (const wait of [0, LATE_APPEND_MS]) {
    if (wait) await sleep(wait);
    const { size } = await old.stat();
    if (size <= carried) continue;
    const tail = new Uint8Array(size - carried);
    const { bytesRead } = await old.read(tail, 0, tail.length, carried);
    await appendFile(path, tail.subarray(0, bytesRead));
    carried += bytesRead;
  }
}

/** What tests may run inside a cut-back: `afterRead` between reading the log and replacing it. */
export interface StepLogHooks {
  afterRead?: () => Promise<void>;
}

/**
 * The --log file at `path` for the run `run` (its folder's absolute path), checked now (a folder, a device or a FIFO
 * there is refused before any work).
 */
export async function openStepLog(path: string, run: string, hooks: StepLogHooks = {}): Promise<StepLog> {
  await checkOutputFile(path, '--log');
  let writes = Promise.resolve();
  const queue = <T>(write: () => Promise<T>): Promise<T> => {
    const done = writes.then(write);
    writes = done.then(() => undefined);
    writes.catch(() => undefined); // awaited by settled(): never an unhandled rejection
    return done;
  };
  let first = true;
  return {
    append(line) {
      const text = `${linePrefix(run)}${JSON.stringify(line).slice(1)}\n`;
      void queue(async () => {
        // the first line of this process starts a line of its own, whatever the file ended with
        const lead = first && (await endsMidLine(path)) ? '\n' : '';
        first = false;
        await appendFile(path, lead + text);
      }).catch(() => undefined);
    },
    cutBackTo(step) {
      return queue(async () => {
        let bytes: Uint8Array;
        let old: FileHandle;
        try {
          // opened first: whatever another process appends from here on is in this file, to be carried over
          old = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { dropped: 0, others: 0 };
          throw error;
        }
        try {
          bytes = await readRegularFile(path, { what: '--log' });
          await hooks.afterRead?.();
        } catch (error) {
          await old.close();
          throw error;
        }
        // lines as byte ranges, each with its line break: what is kept is written back byte for byte
        const decoder = new TextDecoder();
        const kept: Uint8Array[] = [];
        let [dropped, others] = [0, 0];
        for (let start = 0; start < bytes.length;) {
          const end = bytes.indexOf(0x0a, start);
          const next = end < 0 ? bytes.length : end + 1;
          const line = bytes.subarray(start, next);
          const text = decoder.decode(line).trim();
          const kind = text === '' ? 'other' : ownLine(text, run, step);
          if (kind === 'drop') dropped++;
          else kept.push(line);
          if (kind === 'other' && text !== '') others++;
          start = next;
        }
        try {
          if (dropped > 0) {
            await writeFileAtomically(path, concat(kept));
            await carryLateAppends(old, bytes.length, path);
          }
        } finally {
          await old.close();
        }
        return { dropped, others };
      });
    },
    settled: () => writes,
  };
}

/** The line a resumed run prints when it cut its --log back. */
export function logCutLine(log: string, step: number, cut: { dropped: number; others: number }): string {
  const lines = (n: number) => `${n} line${n === 1 ? '' : 's'}`;
  return (
    `  --log ${log}: ${lines(cut.dropped)} after step ${step} removed (those steps are trained again)` +
    (cut.others > 0 ? `; ${lines(cut.others)} of other runs or notes kept as they were` : '')
  );
}

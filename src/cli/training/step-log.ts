// The --log file of `splade-lab train`: one JSON line per reported step, appended as the run goes (kept across
// --resume). It is checked before any work (a regular file, or a new one in an existing folder), and a resumed run
// cuts it back to its checkpoint first, so that no step is logged twice.
import { appendFile } from 'node:fs/promises';
import { checkOutputFile, readRegularFile, writeFileAtomically } from '../../app/platform/platform-node.ts';

export interface StepLog {
  /** Appends one line (after whatever was asked before it). */
  append(line: { step: number }): void;
  /** Drops the lines of steps after `step` (a resumed run trains them again); resolves with how many were dropped. */
  cutBackTo(step: number): Promise<number>;
  /** Resolves once every write asked for is done (rejects with the first that failed). */
  settled(): Promise<void>;
}

/** The --log file at `path`, checked now (a folder, a device or a FIFO there is refused before any work). */
export async function openStepLog(path: string): Promise<StepLog> {
  await checkOutputFile(path, '--log');
  let writes = Promise.resolve();
  const queue = <T>(write: () => Promise<T>): Promise<T> => {
    const done = writes.then(write);
    writes = done.then(() => undefined);
    writes.catch(() => undefined); // awaited by settled(): never an unhandled rejection
    return done;
  };
  return {
    append(line) {
      void queue(() => appendFile(path, `${JSON.stringify(line)}\n`)).catch(() => undefined);
    },
    cutBackTo(step) {
      return queue(async () => {
        let text: string;
        try {
          text = new TextDecoder().decode(await readRegularFile(path, { what: '--log' }));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
          throw error;
        }
        const lines = text.split('\n').filter(Boolean);
        // a line cut short by the process that was killed does not parse: it goes too
        const kept = lines.filter((line) => {
          try {
            const logged = (JSON.parse(line) as { step?: unknown }).step;
            return typeof logged === 'number' && logged <= step;
          } catch {
            return false;
          }
        });
        if (kept.length < lines.length) await writeFileAtomically(path, kept.map((line) => `${line}\n`).join(''));
        return lines.length - kept.length;
      });
    },
    settled: () => writes,
  };
}

// One JSON record file in Node (a run's run.json, a sweep's sweep.json): read only as a regular file under a size cap
// and parsed with the file named (null when missing); written whole, atomically and durably (io/durable-write-node.ts).
import { readRegularFile } from '../../io/regular-file-node.ts';
import { writeFileAtomically } from '../../io/durable-write-node.ts';
import { parseJsonText } from '../../util/json-text.ts';

/**
 * The parsed JSON of `path`, or null when there is no such file; anything else wrong is an error naming the file
 * (as `what` calls it: "the record", "--measured") and ending with `advice`.
 */
export async function readRecordFile(path: string, maxBytes: number, what: string, advice: string): Promise<unknown> {
  let bytes: Uint8Array;
  try {
    bytes = await readRegularFile(path, { what, maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`${code ? `${path} cannot be read: ` : ''}${(error as Error).message}. ${advice}`, { cause: error });
  }
  if (bytes.length === 0) throw new Error(`${path} is empty (a write that never finished?). ${advice}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    throw new Error(`${path} is not UTF-8 text. ${advice}`, { cause: error });
  }
  return parseJsonText(text, path, advice);
}

/** Writes `value` as the JSON file `path`, replacing it atomically (never left empty or half-written). */
export function writeRecordFile(path: string, value: unknown): Promise<void> {
  return writeFileAtomically(path, JSON.stringify(value, null, 1) + '\n');
}

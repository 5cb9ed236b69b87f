// An input file option read whole (a regular file only: a folder, a device or a FIFO is refused before it is
// opened), with a message that names the option, the path and why it cannot be read.
import { readRegularFile } from '../app/platform/platform-node.ts';

const REASONS: Record<string, string> = {
  ENOENT: 'there is no such file',
  ENOTDIR: 'a part of the path is not a folder',
  EACCES: 'permission denied',
};

/** The bytes of `--<option> <path>`; an error saying which option, which path and what is wrong otherwise. */
export async function readInputFile(option: string, path: string): Promise<Uint8Array> {
  try {
    return await readRegularFile(path, { what: `--${option}` });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!code) throw error; // refused by the regular-file check: it names what and where already
    const reason = REASONS[code] ?? (error as Error).message;
    throw new Error(`cannot read --${option} ${path}: ${reason}; check the path`, { cause: error });
  }
}

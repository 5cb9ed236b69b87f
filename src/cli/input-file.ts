// An input file option read whole, with a message that names the option, the path and why it cannot be read.
import { readFile } from 'node:fs/promises';

const REASONS: Record<string, string> = {
  ENOENT: 'there is no such file',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of the path is not a folder',
  EACCES: 'permission denied',
};

/** The bytes of `--<option> <path>`; an error saying which option, which path and what is wrong otherwise. */
export async function readInputFile(option: string, path: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (error) {
    const reason = REASONS[(error as NodeJS.ErrnoException).code ?? ''] ?? (error as Error).message;
    throw new Error(`cannot read --${option} ${path}: ${reason}; check the path`, { cause: error });
  }
}

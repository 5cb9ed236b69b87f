// Creating output folders, the one way every command does it: one plain mkdir per missing level (never Node's
// recursive mkdir, which spins for ever on paths such as /proc/x), so that a folder that cannot be made fails at once.
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * Creates `dir` and its missing parents one level at a time. (Node's recursive mkdir spins for ever on paths such as
 * /proc/x, where the kernel answers ENOENT to every attempt; one plain mkdir per level fails at once instead.) Returns
 * the folders it made, outermost first; throws the file system's error (its `code` kept), or one saying which path
 * exists and is not a folder.
 */
export async function makeFolders(dir: string): Promise<string[]> {
  const missing: string[] = [];
  for (let current = resolve(dir); ; current = dirname(current)) {
    try {
      if (!(await stat(current)).isDirectory())
        throw Object.assign(new Error(`${current} exists and is not a folder`), { code: 'ENOTDIR' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      missing.push(current);
      if (dirname(current) === current) break;
    }
  }
  const made = missing.reverse();
  for (const folder of made) {
    await mkdir(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error; // made meanwhile by another process: fine
    });
  }
  return made;
}

/** makeFolders for a command's output option: an error names the option, the folder, why, and what to do. */
export async function makeOutputFolder(dir: string, option: string): Promise<string[]> {
  try {
    return await makeFolders(dir);
  } catch (error) {
    throw new Error(`${option} ${dir}: cannot create this folder (${(error as Error).message}); give a folder you can write to`, {
      cause: error,
    });
  }
}

// An output file option is checked before the work that fills it: its folder exists and is a folder, the path is no
// folder, and both can be written, so a typo fails at once instead of after an evaluation, an encoding or a lesson.
import { constants, type Stats } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** The status of `path`, or null where nothing is there (or a part of the path is no folder). */
async function statOrNull(path: string, where: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new Error(`${where}: ${path} cannot be examined (${(error as Error).message}); check the path`, { cause: error });
  }
}

/** Refuses, naming the option, the path, what is wrong and what to do, an `--<option> <path>` that cannot be written. */
export async function checkOutputFile(option: string, path: string): Promise<void> {
  const where = `--${option} ${path}`;
  const target = await statOrNull(path, where);
  if (target?.isDirectory()) throw new Error(`${where} is a folder; give the path of a file (new or to replace)`);
  const folder = dirname(resolve(path));
  const parent = await statOrNull(folder, where);
  if (!parent) throw new Error(`${where}: the folder ${folder} does not exist; create it first, or write elsewhere`);
  if (!parent.isDirectory()) throw new Error(`${where}: ${folder} is not a folder; give a path inside a folder`);
  await access(target ? path : folder, constants.W_OK).catch(() => {
    throw new Error(`${where}: ${target ? 'the file' : `the folder ${folder}`} cannot be written; write elsewhere`);
  });
}

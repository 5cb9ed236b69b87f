// Node checkpoint store: one sub-folder per checkpoint, written under a hidden temporary name, synced, then renamed.
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { CheckpointStore } from './training-checkpoint.ts';
import { syncFolder, writeSynced } from '../io/durable-write-node.ts';
import { makeFolders } from '../io/make-folders-node.ts';

const PARTIAL = '.partial-';

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === 'ENOENT';
}

/** Refuses names that are not one plain path component. */
function checkName(name: string): void {
  if (!name || name.startsWith('.') || /[/\\]/.test(name))
    throw new Error(`checkpoint name "${name}" must be one plain folder name`);
}

const REPLACED = '.replaced-';

/**
 * Finishes or undoes a replacement of `<parent>/<base>` that a crash interrupted: a complete old folder set aside
 * while the target is missing is put back; leftovers of unfinished writes and of finished replacements are removed.
 */
async function recoverInterruptedReplace(parent: string, base: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(parent);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  const targetExists = entries.includes(base);
  let restored = targetExists;
  for (const entry of entries) {
    if (entry.startsWith(`.${base}${PARTIAL}`)) await rm(join(parent, entry), { recursive: true, force: true });
    else if (entry.startsWith(`.${base}${REPLACED}`)) {
      if (!restored) {
        await rename(join(parent, entry), join(parent, base));
        restored = true;
      } else await rm(join(parent, entry), { recursive: true, force: true });
    }
  }
}

/**
 * Writes `files` (relative paths) as the folder `dir`, atomically: every file is written and synced into a hidden
 * sibling, the sibling folder is synced, then one rename puts it in place. A folder cannot be renamed over a
 * non-empty one, so an existing `dir` is first renamed aside (and removed after); a crash between those two renames
 * leaves the old folder aside, which the next write to that place puts back or clears away.
 */
export async function writeFolderAtomically(dir: string, files: Map<string, Uint8Array>): Promise<void> {
  const target = resolve(dir);
  const parent = dirname(target);
  const base = target.slice(parent.length + 1);
  const temp = join(parent, `.${base}${PARTIAL}${process.pid}`);
  await makeFolders(parent);
  await recoverInterruptedReplace(parent, base);
  for (const [name, bytes] of files) {
    const path = resolve(temp, name);
    if (!path.startsWith(temp + sep)) throw new Error(`file name "${name}" points outside ${target}`);
    await writeSynced(path, bytes);
  }
  for (const folder of new Set([...files.keys()].map((name) => dirname(resolve(temp, name))))) await syncFolder(folder);
  const aside = join(parent, `.${base}${REPLACED}${process.pid}`);
  let replaced = false;
  try {
    await rename(target, aside);
    replaced = true;
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  await rename(temp, target);
  await syncFolder(parent);
  if (replaced) await rm(aside, { recursive: true, force: true });
}

/** Checkpoints as sub-folders of `dir`; leftovers of interrupted writes (hidden folders) are ignored and cleaned up. */
export function createFolderCheckpointStore(dir: string): CheckpointStore {
  const root = resolve(dir);
  return {
    label: `folder ${root}`,
    async list() {
      let entries;
      try {
        entries = await readdir(root, { withFileTypes: true });
      } catch (error) {
        if (isMissing(error)) return [];
        throw error;
      }
      return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
    },
    async read(name, file) {
      checkName(name);
      try {
        return new Uint8Array(await readFile(join(root, name, file)));
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async write(name, files) {
      checkName(name);
      await makeFolders(root);
      for (const entry of await readdir(root)) {
        if (entry.startsWith('.') && entry.includes(PARTIAL)) await rm(join(root, entry), { recursive: true, force: true });
      }
      await writeFolderAtomically(join(root, name), files);
    },
    async remove(name) {
      checkName(name);
      await rm(join(root, name), { recursive: true, force: true });
    },
  };
}

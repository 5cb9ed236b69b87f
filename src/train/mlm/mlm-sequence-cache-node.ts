// The masked-LM sequence cache in a folder (beside the batch cache: SPLADE_LAB_BATCH_CACHE, default
// ~/.cache/splade-lab/batches): <root>/<key>.tokens, written to a temporary name and renamed into place; a folder that
// cannot be written turns the cache off with one line, and the text is tokenized as before.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFolders } from '../../io/make-folders-node.ts';
import type { SequenceCacheStore } from './mlm-sequence-cache.ts';

export function createFolderSequenceCache(root: string): SequenceCacheStore {
  const label = `the sequence cache ${root}`;
  const file = (key: string) => join(root, `${key}.tokens`);
  let off = false;
  return {
    label,
    async get(key) {
      const bytes = await readFile(file(key)).catch(() => null);
      return bytes ? new Uint8Array(bytes) : null;
    },
    async put(key, bytes) {
      if (off) return;
      try {
        await makeFolders(root);
        const temporary = `${file(key)}.${process.pid}.tmp`;
        await writeFile(temporary, bytes);
        await rename(temporary, file(key));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (!code) throw error;
        off = true;
        process.stderr.write(`splade-lab: ${label} cannot be written (${code}); the text is tokenized on every run\n`);
      }
    },
  };
}

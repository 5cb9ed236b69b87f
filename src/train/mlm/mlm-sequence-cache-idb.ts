// The masked-LM sequence cache in the page's IndexedDB (idb-keyval): one blob per text, tokenizer, layout and length
// under its key, so that a second run or a resume on the same text (a reloaded tab) reads its sequences instead of
// tokenizing again; a full or failing store turns the cache off for the session and the text is tokenized as before.
import { createStore, get, set, type UseStore } from 'idb-keyval';
import type { SequenceCacheStore } from './mlm-sequence-cache.ts';

export function createIdbSequenceCache(dbName = 'splade-lab-sequences', storeName = 'sequences'): SequenceCacheStore {
  const store: UseStore = createStore(dbName, storeName);
  let off = false;
  return {
    label: `the browser's sequence cache (IndexedDB ${dbName})`,
    async get(key) {
      const value = await get<unknown>(key, store).catch(() => undefined);
      return value instanceof Uint8Array ? value : null;
    },
    async put(key, bytes) {
      if (off) return;
      // a full store (or a private window without IndexedDB) costs the cache, never the run
      await set(key, bytes, store).catch(() => void (off = true));
    },
  };
}

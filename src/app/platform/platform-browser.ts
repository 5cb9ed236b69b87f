// The page's platform (inside the GPU worker): the bundled demo and other folder URLs, Hub ids cached in Cache
// Storage, picked files, checkpoints in IndexedDB, Web Locks, and the browser's WebGPU.
import { createIdbSequenceCache } from '../../train/mlm/mlm-sequence-cache-idb.ts';
import { createIdbBatchCache } from '../../train/splade/batch-cache-idb.ts';
import { acquireGpuContext } from '../../gpu/acquire.ts';
import { createCacheStorageCache, createFileListSource } from '../../io/file-source-browser.ts';
import { createHubSource, type FileCache } from '../../io/hub/hub.ts';
import { createUrlFolderSource } from '../../io/hub/url-folder-source.ts';
import { createIdbCheckpointStore, readIdbModel, writeIdbModel } from '../../train/checkpoint-store-idb.ts';
import { createMemorySource } from '../../io/file-source.ts';
import type { FilesRef, Platform } from './platform.ts';
import { lockRunInBrowser } from './run-lock-browser.ts';
import { idbRunCatalog } from './run-store-idb.ts';

/** Cache Storage when the context has it (secure contexts: https or localhost), else no cache. */
function hubCache(): FileCache | undefined {
  return typeof caches === 'undefined' ? undefined : createCacheStorageCache();
}

export const browserPlatform: Platform = {
  acquireGpu: (label) => acquireGpuContext(self.navigator.gpu, label),
  async files(ref: FilesRef) {
    switch (ref.kind) {
      case 'url':
        return createUrlFolderSource(ref.url, ref.label);
      case 'hub':
        return createHubSource({
          repo: ref.id,
          repoType: ref.repoType,
          revision: ref.revision,
          baseUrl: ref.hubUrl,
          cache: hubCache(),
        });
      case 'files':
        return createFileListSource(ref.files, `${ref.files.length} picked file(s)`);
      case 'folder':
        throw new Error('the page cannot open a folder path; pick or drop the model files instead');
      case 'run': {
        const files = await readIdbModel(ref.id);
        if (files.size === 0)
          throw new Error(`Run "${ref.id}" has no saved model (it did not finish, or its storage was cleared).`);
        return createMemorySource(files, `the model of run "${ref.id}"`);
      }
    }
  },
  checkpointStore: (run) => createIdbCheckpointStore(run),
  lockRun: (run) => lockRunInBrowser(run),
  runs: idbRunCatalog,
  // every batch of a run is cached before its first step, so a reloaded tab resumes without the file
  batchCache: { store: createIdbBatchCache(), fillAhead: true },
  sequenceCache: createIdbSequenceCache(),
  writeModel: (run, files) => writeIdbModel(run, files),
};

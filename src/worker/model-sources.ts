// Turns the page's ModelSource (demo folder, Hub id, picked files) into a FileSource the checkpoint loader reads.
import type { FileSource } from '../io/file-source.ts';
import { createCacheStorageCache, createFileListSource } from '../io/file-source-browser.ts';
import { createHubSource, type FileCache } from '../io/hub.ts';
import type { ModelSource } from './api.ts';
import { createUrlFolderSource } from '../io/url-folder-source.ts';

/** Cache Storage when the context has it (secure contexts: https or localhost), else no cache. */
function hubCache(): FileCache | undefined {
  return typeof caches === 'undefined' ? undefined : createCacheStorageCache();
}

export function fileSourceFor(source: ModelSource): FileSource {
  switch (source.kind) {
    case 'demo':
      return createUrlFolderSource(source.url, 'the synthetic demo backbone');
    case 'hub':
      return createHubSource({ repo: source.id, revision: source.revision, baseUrl: source.hubUrl, cache: hubCache() });
    case 'files':
      return createFileListSource(source.files, `${source.files.length} picked file(s)`);
  }
}

/** How the model is named in the page and the URL. */
export function modelName(source: ModelSource): string {
  switch (source.kind) {
    case 'demo':
      return 'demo';
    case 'hub':
      return source.id;
    case 'files':
      return 'local files';
  }
}

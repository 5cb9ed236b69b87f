// The set-up most CLI tests share: a temporary folder per test file with the tiny SPLADE model written inside it.
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import type { Architecture } from '../../src/contract/model/model-config.ts';
import { tempFolderPerFile, type TempFolder } from './temp-folder.ts';
import { writeTinySpladeModel } from './tiny-splade-model.ts';

export interface TinyCliWorkspace extends TempFolder {
  /** The tiny model's folder, `<root>/<modelFolder>`. */
  readonly model: string;
}

/**
 * Registers the hooks that make `<tmp>/<prefix>XXXXXX` with writeTinySpladeModel's model in `<root>/<modelFolder>`
 * (before the file's tests, ahead of any beforeAll registered after this call) and remove it all after them.
 */
export function tinyCliWorkspace(prefix: string, modelFolder = 'tiny', architecture: Architecture = 'bert'): TinyCliWorkspace {
  const folder = tempFolderPerFile(prefix);
  beforeAll(() => writeTinySpladeModel(join(folder.root, modelFolder), architecture));
  return {
    get root() {
      return folder.root;
    },
    get model() {
      return join(folder.root, modelFolder);
    },
  };
}

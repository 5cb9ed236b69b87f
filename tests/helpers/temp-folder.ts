// A test file's own temporary folder: made before its first test, removed with everything in it after its last.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export interface TempFolder {
  /** The folder's path (only inside hooks and tests: it is made in a beforeAll). */
  readonly root: string;
}

/** Registers the beforeAll that makes `<tmp>/<prefix>XXXXXX` and the afterAll that removes it. */
export function tempFolderPerFile(prefix: string): TempFolder {
  let root: string | undefined;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(() => (root === undefined ? undefined : rm(root, { recursive: true, force: true })));
  return {
    get root() {
      if (root === undefined)
        throw new Error(`the temporary folder ${prefix}* is made in a beforeAll: read it in a hook or a test`);
      return root;
    },
  };
}

// Resolves a CLI model argument: a folder on disk, or a Hugging Face Hub id (downloaded into a folder cache).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createFolderCache, createFolderSource, isDirectory } from '../io/file-source-node.ts';
import type { FileSource } from '../io/file-source.ts';
import { createHubSource, isHubRepoId } from '../io/hub.ts';

/** SPLADE_LAB_HUB_URL points Hub ids at another server (tests use a local one); SPLADE_LAB_CACHE moves the cache. */
export async function resolveModelSource(argument: string): Promise<FileSource> {
  if (await isDirectory(argument)) return createFolderSource(argument);
  if (!isHubRepoId(argument)) throw new Error(`"${argument}" is neither a folder nor a Hub id ("org/name")`);
  const cacheDir = process.env.SPLADE_LAB_CACHE ?? join(homedir(), '.cache', 'splade-lab', 'hub');
  return createHubSource({
    repo: argument,
    baseUrl: process.env.SPLADE_LAB_HUB_URL,
    token: process.env.HF_TOKEN,
    cache: createFolderCache(cacheDir),
  });
}

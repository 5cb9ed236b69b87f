// The Node platform of the CLI: model folders and Hub ids (downloads cached in a folder), checkpoints in the run
// folder, a lock file per run, and Dawn's WebGPU.
import { createFolderSequenceCache } from '../../train/mlm/mlm-sequence-cache-node.ts';
import { createFolderBatchCache } from '../../train/splade/batch-cache-node.ts';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { nodeGpuContext } from '../../gpu/webgpu-node.ts';
import { createFolderCache, createFolderSource, isDirectory } from '../../io/file-source-node.ts';
import { createHubSource } from '../../io/hub/hub.ts';
import { isHubRepoId } from '../../io/hub/hub-urls.ts';
import { createUrlFolderSource } from '../../io/hub/url-folder-source.ts';
import { createFolderCheckpointStore, writeFolderAtomically } from '../../train/checkpoint-store-node.ts';
import { MODEL_PRESETS, presetByKey } from '../../contract/model/model-presets.ts';
import type { FilesRef, Platform } from './platform.ts';
import { lockRunFolder } from './run-lock-node.ts';
import { createFolderRunStore } from './run-store-node.ts';

/** The file rules every command follows: output folders made one level at a time, only regular files read. */
export { makeOutputFolder } from '../../io/make-folders-node.ts';
export { checkOutputFile, readRegularFile } from '../../io/regular-file-node.ts';
export { writeFileAtomically } from '../../io/durable-write-node.ts';
export { checkOutputPath, writeOutputFile, type CommandInput } from '../../io/output-file-node.ts';

/** Checkpoints live in <run folder>/checkpoint, the trained model in <run folder>/model. */
export const CHECKPOINT_FOLDER = 'checkpoint';

const MODEL_FOLDER = 'model';

export const nodePlatform: Platform = {
  acquireGpu: (label) => nodeGpuContext(label),
  async files(ref: FilesRef) {
    switch (ref.kind) {
      case 'folder':
        return createFolderSource(ref.path);
      case 'url':
        return createUrlFolderSource(ref.url, ref.label);
      case 'hub':
        return createHubSource({
          repo: ref.id,
          repoType: ref.repoType,
          revision: ref.revision,
          baseUrl: ref.hubUrl ?? process.env.SPLADE_LAB_HUB_URL,
          token: process.env.HF_TOKEN,
          cache: createFolderCache(process.env.SPLADE_LAB_CACHE ?? join(homedir(), '.cache', 'splade-lab', 'hub')),
        });
      case 'files':
        throw new Error('picked files exist only in the page; give the CLI a model folder or a Hub id');
      case 'run':
        return createFolderSource(join(ref.id, MODEL_FOLDER));
    }
  },
  checkpointStore: (run) => createFolderCheckpointStore(join(run, CHECKPOINT_FOLDER)),
  lockRun: (run) => lockRunFolder(run),
  runs: createFolderRunStore(),
  /** Batches cached as they are made, in SPLADE_LAB_BATCH_CACHE (default ~/.cache/splade-lab/batches). */
  get batchCache() {
    return {
      store: createFolderBatchCache(process.env.SPLADE_LAB_BATCH_CACHE ?? join(homedir(), '.cache', 'splade-lab', 'batches')),
      fillAhead: false,
    };
  },
  /** Masked-LM sequences beside the batches, in SPLADE_LAB_BATCH_CACHE. */
  get sequenceCache() {
    return createFolderSequenceCache(process.env.SPLADE_LAB_BATCH_CACHE ?? join(homedir(), '.cache', 'splade-lab', 'batches'));
  },
  async writeModel(run, files) {
    const dir = join(run, MODEL_FOLDER);
    await writeFolderAtomically(dir, files);
    return dir;
  },
};

/**
 * A CLI model argument: a folder on disk, a preset key (model-presets.ts), or a Hub id ("org/name"). SPLADE_LAB_HUB_URL points Hub ids at another
 * server (tests use a local one); SPLADE_LAB_CACHE moves the download cache; HF_TOKEN is sent for gated repos.
 */
export async function modelRefFromArgument(argument: string): Promise<FilesRef> {
  if (await isDirectory(argument)) return { kind: 'folder', path: argument };
  const preset = presetByKey(argument);
  if (preset) return { kind: 'hub', id: preset.hubId };
  if (!isHubRepoId(argument)) {
    const keys = MODEL_PRESETS.map((p) => p.key).join(', ');
    throw new Error(`"${argument}" is neither a folder, a Hub id ("org/name") nor a preset (${keys})`);
  }
  return { kind: 'hub', id: argument };
}

/** A folder on disk (a BEIR set, a tokenizer). */
export function folderRef(path: string): FilesRef {
  return { kind: 'folder', path };
}

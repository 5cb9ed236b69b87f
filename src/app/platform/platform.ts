// What differs between the page and Node, behind one interface the use cases take: where a model's files come from,
// where a run's checkpoints live, who may write a run (a lock), and how the GPU is acquired.
import type { SequenceCacheStore } from '../../train/mlm/mlm-sequence-cache.ts';
import type { GpuContext } from '../../gpu/context.ts';

export type { GpuContext };
import type { FileSource } from '../../io/file-source.ts';
import type { BatchCacheStore } from '../../train/splade/batch-cache.ts';
import type { CheckpointStore } from '../../train/training-checkpoint.ts';
import type { RunStore } from '../../contract/experiments/runs.ts';

/** Where a model's (or a data set's) files come from. */
export type FilesRef =
  /** A model folder on disk (Node). */
  | { kind: 'folder'; path: string }
  /** A plain folder URL, such as the page's bundled demo. */
  | { kind: 'url'; url: string; label: string }
  /** A Hugging Face Hub repository, a model's or a dataset's (hubUrl: a mirror or a test server). */
  | { kind: 'hub'; id: string; revision?: string; hubUrl?: string; repoType?: 'model' | 'dataset' }
  /** Files the user picked or dropped (the page). */
  | { kind: 'files'; files: File[] }
  /** The trained model a run saved (its folder's model/ in Node, IndexedDB in the page). */
  | { kind: 'run'; id: string };

/** A held run: released when the run ends (or by the process's end, which a stale-lock check detects). */
export interface RunLock {
  release(): Promise<void>;
}

export interface Platform {
  acquireGpu(label: string): Promise<GpuContext>;
  files(ref: FilesRef): Promise<FileSource>;
  /** The checkpoints of one run: `run` is the run's folder in Node, its key in the page. */
  checkpointStore(run: string): CheckpointStore;
  /** Takes the one-writer lock of a run, or throws a RunLockedError naming its holder. */
  lockRun(run: string): Promise<RunLock>;
  /** Where run records are kept (a run folder's run.json in Node, IndexedDB in the page). */
  readonly runs: RunStore;
  /**
   * Where tokenized batches are cached (IndexedDB in the page, a folder in Node), and whether a run caches all its
   * batches before its first step (the page: a reload then resumes without the file) or as it goes (Node).
   */
  readonly batchCache: { store: BatchCacheStore; fillAhead: boolean };
  /** Where a masked-LM text's sequences are kept between runs (IndexedDB in the page, a folder beside the batches in Node). */
  readonly sequenceCache: SequenceCacheStore;
  /** Stores a run's trained model (files by path inside the model folder), replacing any earlier one whole; returns where. */
  writeModel(run: string, files: Map<string, Uint8Array>): Promise<string>;
}

/** How a model is named in messages, keys and the page. */
export function filesRefName(ref: FilesRef): string {
  switch (ref.kind) {
    case 'folder':
      return ref.path;
    case 'url':
      return ref.label;
    case 'hub': {
      const id = ref.repoType === 'dataset' ? `datasets/${ref.id}` : ref.id;
      return ref.revision ? `${id}@${ref.revision}` : id;
    }
    case 'files':
      return 'local files';
    case 'run':
      return `run ${ref.id}`;
  }
}

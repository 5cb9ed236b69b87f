// Node's training data: a path on disk (TSV and JSONL streamed through an open file, Parquet read by row groups) or,
// only when nothing exists at that path and it has the shape org/name, a Hub dataset id (the split's Parquet files,
// SPLADE_LAB_HUB_URL and HF_TOKEN honoured); a path typo is "no such file", never a Hub request.
import { stat } from 'node:fs/promises';
import { isDirectory } from '../../io/file-source-node.ts';
import { DEFAULT_HUB_URL } from '../../io/hub/hub.ts';
import { isHubRepoId } from '../../io/hub/hub-urls.ts';
import { openRandomAccessFile } from '../../io/random-access-node.ts';
import { fileKind } from '../../io/regular-file-node.ts';
import { nodePlatform } from '../platform/platform-node.ts';
import { readHubTrainingData, readTrainingFile, type ReadTrainingData } from './training-data.ts';

export type TrainingDataRead = ReadTrainingData & { where: string };

/** What a --triplets value was taken for. */
export type TripletsPlace = { kind: 'file'; path: string } | { kind: 'hub'; repo: string };

/** Endings of data files: an "org/name" ending so is a mistyped path, not a dataset. */
const FILE_ENDING = /\.(tsv|jsonl|ndjson|parquet|json|csv|txt)$/i;

/** Why `value`, at which nothing exists, is not taken for a Hub dataset id; null when it is taken for one. */
async function notHubIdReason(value: string): Promise<string | null> {
  const parts = value.split('/');
  if (parts.length !== 2) return 'a Hub id is "org/name", with one "/"';
  if (!isHubRepoId(value))
    return 'each part of "org/name" is letters, digits, "-", "_" or "." (no "--" or ".."), at most 96 characters';
  const ending = FILE_ENDING.exec(value);
  if (ending) return `it ends in "${ending[0]}", as a file name does`;
  if (await isDirectory(parts[0])) return `"${parts[0]}/" is a folder here`;
  return null;
}

/** A local file when anything exists at `value` (a folder or device there is refused), else a Hub id of the right shape. */
export async function tripletsPlace(value: string): Promise<TripletsPlace> {
  const found = await stat(value).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
    throw new Error(`${value}: cannot be read (${error.code ?? error.message}); check the path and its permissions`);
  });
  if (found) {
    if (!found.isFile())
      throw new Error(
        `--triplets ${value} is ${fileKind(found)}, not a file: give a TSV, JSONL or Parquet file, or a Hub dataset id ("org/name")`,
      );
    return { kind: 'file', path: value };
  }
  const why = await notHubIdReason(value);
  if (why) throw new Error(`no such file: ${value} (not a Hub id: ${why})`);
  return { kind: 'hub', repo: value };
}

export interface TrainingDataOptions {
  /** A Hub dataset's subset (folder) and split. */
  subset?: string;
  split?: string;
  /** Told which the value was taken for when it is a Hub dataset (the CLI writes it to stderr). */
  say?: (line: string) => void;
}

/** Reads `value` (a file, else a Hub dataset id) and runs `use` with it; a streamed file is closed after. */
export async function withTrainingData<T>(
  value: string,
  options: TrainingDataOptions,
  use: (read: TrainingDataRead) => Promise<T>,
): Promise<T> {
  const place = await tripletsPlace(value);
  if (place.kind === 'file') {
    const file = await openRandomAccessFile(place.path);
    try {
      return await use({ ...(await readTrainingFile(file)), where: place.path });
    } finally {
      await file.close();
    }
  }
  const { subset, split, say } = options;
  const baseUrl = process.env.SPLADE_LAB_HUB_URL;
  say?.(
    `reading Hub dataset ${place.repo} (${subset ? `subset "${subset}", ` : ''}split "${split ?? 'train'}") from ${baseUrl ?? DEFAULT_HUB_URL}; there is no local path ${value}`,
  );
  const read = await readHubTrainingData(
    nodePlatform,
    { repo: place.repo, subset, split },
    { baseUrl, token: process.env.HF_TOKEN },
  );
  return use({ ...read, where: `${read.summary.name} (${read.paths.join(', ')})` });
}

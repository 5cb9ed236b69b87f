// Training rows from a Hub dataset repository: the Parquet files of one subset (a folder) and split, listed through
// the Hub's tree API and read through a Hub file source, each file under a size cap; the subset and split are checked
// to name a folder inside the repository before any request.
import { DEFAULT_HUB_URL } from './hub.ts';
import { HubError } from './hub-error.ts';
import { listDatasetFolder, type HubListing } from './hub-dataset-listing.ts';
import { quotePath, repoPathProblem, type HubRepo } from './hub-urls.ts';
import { type FileSource, readRequiredFile } from './file-source.ts';
import { memoryFile } from './random-access.ts';
import { readParquetTriplets } from './triplets-parquet.ts';
import type { Triplet } from './triplets.ts';
import { crc32 } from '../util/crc32.ts';
import { HubDatasetRef } from '../contract/data-sources.ts';

export { MAX_LISTING_BYTES, type HubListing } from './hub-dataset-listing.ts';

/** A Parquet file of a Hub dataset larger than this is refused (the Hub's own Parquet shards stay under ~500 MB). */
export const MAX_DATASET_FILE_BYTES = 2 ** 30;

/** A split names files (<split>-*.parquet) or a folder: letters, digits, "-", "_", ".", as the datasets library's. */
const SPLIT_NAME = /^\w[\w.-]{0,95}$/;

/** Throws a HubError, before any request, for a subset that is not a folder inside the repository or a split that is not a name. */
function checkSubsetAndSplit(ref: HubDatasetRef, split: string): void {
  const where = `datasets/${ref.repo}`;
  const subsetProblem = ref.subset === undefined ? null : repoPathProblem(ref.subset);
  if (subsetProblem)
    throw new HubError(
      `subset ${quotePath(ref.subset!)} is not a folder of ${where}: ${subsetProblem}; name a folder inside the repository, as its file list on the Hub shows it`,
      ref.repo,
      ref.subset!,
      null,
    );
  if (!SPLIT_NAME.test(split))
    throw new HubError(
      `split ${quotePath(split)} of ${where} is not a split name: letters, digits, "-", "_" or "." (e.g. "train")`,
      ref.repo,
      split,
      null,
    );
}

/** The split's Parquet files of the subset folder: <split>-*.parquet or <split>/*.parquet, in name order. */
export async function listSplitParquet(ref: HubDatasetRef, listing: HubListing = {}): Promise<string[]> {
  const split = ref.split ?? 'train';
  checkSubsetAndSplit(ref, split);
  const hub: HubRepo = {
    baseUrl: (listing.baseUrl ?? DEFAULT_HUB_URL).replace(/\/+$/, ''),
    repo: ref.repo,
    type: 'dataset',
    revision: ref.revision ?? 'main',
  };
  const folder = ref.subset ?? '';
  const entries = await listDatasetFolder(hub, folder, listing);
  const name = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  let files = entries.filter(
    (e) =>
      e.type === 'file' &&
      e.path.endsWith('.parquet') &&
      (name(e.path).startsWith(`${split}-`) || name(e.path) === `${split}.parquet`),
  );
  if (files.length === 0 && entries.some((e) => e.type === 'directory' && name(e.path) === split)) {
    const inner = await listDatasetFolder(hub, folder ? `${folder}/${split}` : split, listing);
    files = inner.filter((e) => e.type === 'file' && e.path.endsWith('.parquet'));
  }
  if (files.length === 0) {
    const seen =
      entries
        .map((e) => name(e.path))
        .slice(0, 12)
        .join(', ') || 'nothing';
    throw new HubError(
      `dataset ${ref.repo}${folder ? ` subset "${folder}"` : ''}: no Parquet files of split "${split}" (found ${seen}); name the subset (a folder) and the split`,
      ref.repo,
      folder,
      null,
    );
  }
  return files.map((e) => e.path).sort();
}

/** Every row of the split's Parquet files, in file order, and the CRC-32 of the files one after another. */
export async function readHubDatasetTriplets(
  ref: HubDatasetRef,
  files: FileSource,
  listing: HubListing = {},
): Promise<{ triplets: Triplet[]; crc32: number; bytes: number; paths: string[] }> {
  const paths = await listSplitParquet(ref, listing);
  const limits = {
    maxFileBytes: listing.maxFileBytes ?? MAX_DATASET_FILE_BYTES,
    tooLargeAdvice:
      "a Hub dataset's Parquet file is held whole in memory: download it and read it as a local file, which is read row group by row group",
  };
  const triplets: Triplet[] = [];
  let crc = 0;
  let bytes = 0;
  for (const path of paths) {
    const content = await readRequiredFile(files, path, limits);
    crc = crc32(content, crc);
    bytes += content.length;
    for (const row of await readParquetTriplets(memoryFile(content, `${ref.repo}/${path}`))) triplets.push(row);
  }
  return { triplets, crc32: crc, bytes, paths };
}

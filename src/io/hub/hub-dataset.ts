// Training rows from a Hub dataset repository: the Parquet files of one subset (a folder) and split, listed through
// the Hub's tree API and read through a Hub file source, each file under the size its listing gives it (the Hub's
// always does; a listing that gives none is refused, as is a file listed over the cap, before any download), so that a
// body longer than its listing says (a server that never ends one) stops there, never buffered up to the cap; the
// subset and split are checked to name a folder inside the repository before any request.
import { DEFAULT_HUB_URL } from './hub.ts';
import { HubError } from './hub-error.ts';
import { listDatasetFolder, type HubListing, type ListedEntry } from './hub-dataset-listing.ts';
import { quotePath, repoPathProblem, type HubRepo } from './hub-urls.ts';
import { FileTooLargeError, fileLocation, type FileSource, readRequiredFile } from '../file-source.ts';
import { memoryFile } from '../random-access.ts';
import { readParquetTriplets } from '../triplets/triplets-parquet.ts';
import type { Triplet } from '../triplets/triplets.ts';
import { crc32 } from '../../util/crc32.ts';
import { HubDatasetRef } from '../../contract/training/data-sources.ts';

export { MAX_LISTED_ENTRIES, MAX_LISTING_BYTES, MAX_LISTING_PAGES, type HubListing } from './hub-dataset-listing.ts';

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
  return (await listSplitParquetFiles(ref, listing)).map((e) => e.path);
}

/** The split's Parquet files of the subset folder with the sizes the listing gives them, in name order. */
export async function listSplitParquetFiles(ref: HubDatasetRef, listing: HubListing = {}): Promise<ListedEntry[]> {
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
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Every row of the split's Parquet files, in file order, and the CRC-32 of the files one after another. */
export async function readHubDatasetTriplets(
  ref: HubDatasetRef,
  files: FileSource,
  listing: HubListing = {},
): Promise<{ triplets: Triplet[]; crc32: number; bytes: number; paths: string[]; rows: number[] }> {
  const listed = await listSplitParquetFiles(ref, listing);
  const cap = listing.maxFileBytes ?? MAX_DATASET_FILE_BYTES;
  const mirror = `check that ${listing.baseUrl ?? DEFAULT_HUB_URL} is the Hugging Face Hub or a faithful mirror of it`;
  // refused before any download: a file the listing gives no size (a body of unknown length would be buffered up to
  // the cap) or more bytes than the cap
  for (const { path, size } of listed) {
    if (size === undefined)
      throw new HubError(
        `the file listing of datasets/${ref.repo} gives no size for ${path}, and the Hub lists every file's size; nothing was downloaded: ${mirror}`,
        ref.repo,
        path,
        null,
      );
    if (size > cap) throw new FileTooLargeError(fileLocation(files, path), size, cap, HELD_WHOLE);
  }
  const triplets: Triplet[] = [];
  const rows: number[] = [];
  let crc = 0;
  let bytes = 0;
  for (const { path, size } of listed as Required<ListedEntry>[]) {
    const limits = {
      maxFileBytes: size,
      tooLargeAdvice: `the listing gives it ${size} bytes, and the server sent more than its own listing says: ${mirror}`,
    };
    const content = await readRequiredFile(files, path, limits);
    if (content.length !== size)
      throw new HubError(
        `${fileLocation(files, path)} ended after ${content.length} of the ${size} bytes its listing gives it; try again, or ${mirror}`,
        ref.repo,
        path,
        null,
      );
    crc = crc32(content, crc);
    bytes += content.length;
    const read = await readParquetTriplets(memoryFile(content, `${ref.repo}/${path}`));
    for (const row of read) triplets.push(row);
    rows.push(read.length);
  }
  return { triplets, crc32: crc, bytes, paths: listed.map((e) => e.path), rows };
}

/** What to do about a Parquet file over the cap. */
const HELD_WHOLE =
  "a Hub dataset's Parquet file is held whole in memory: download it and read it as a local file, which is read row group by row group";

// Training rows from a Hub dataset repository: the Parquet files of one subset (a folder) and split, listed through
// the Hub's tree API (GET /api/datasets/<repo>/tree/<revision>/<subset>) and read through a Hub file source.
import { DEFAULT_HUB_URL, HubError } from './hub.ts';
import { type FileSource, readRequiredFile } from './file-source.ts';
import { memoryFile } from './random-access.ts';
import { readParquetTriplets } from './triplets-parquet.ts';
import type { Triplet } from './triplets.ts';
import { crc32 } from '../util/crc32.ts';
import { HubDatasetRef } from '../contract/data-sources.ts';

export interface HubListing {
  baseUrl?: string;
  token?: string;
  fetch?: typeof fetch;
}

/** The split's Parquet files of the subset folder: <split>-*.parquet or <split>/*.parquet, in name order. */
export async function listSplitParquet(ref: HubDatasetRef, listing: HubListing = {}): Promise<string[]> {
  const base = (listing.baseUrl ?? DEFAULT_HUB_URL).replace(/\/+$/, '');
  const revision = encodeURIComponent(ref.revision ?? 'main');
  const split = ref.split ?? 'train';
  const list = async (folder: string): Promise<{ type: string; path: string }[]> => {
    const url = `${base}/api/datasets/${ref.repo}/tree/${revision}${folder ? `/${folder}` : ''}`;
    const headers: Record<string, string> = listing.token ? { Authorization: `Bearer ${listing.token}` } : {};
    let response: Response;
    try {
      response = await (listing.fetch ?? fetch)(url, { headers });
    } catch (error) {
      throw new HubError(
        `could not list ${folder || 'the root'} of dataset ${ref.repo} (${base}): ${(error as Error).message}`,
        ref.repo,
        folder,
        null,
      );
    }
    if (response.status === 404) return [];
    if (!response.ok)
      throw new HubError(
        `listing ${folder || 'the root'} of dataset ${ref.repo} (${base}): HTTP ${response.status}; a private or gated dataset needs a token`,
        ref.repo,
        folder,
        response.status,
      );
    const entries = (await response.json()) as unknown;
    if (!Array.isArray(entries))
      throw new HubError(`listing dataset ${ref.repo}: the Hub did not answer a list`, ref.repo, folder, response.status);
    return entries as { type: string; path: string }[];
  };
  const folder = ref.subset ?? '';
  const entries = await list(folder);
  const name = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  let files = entries.filter(
    (e) =>
      e.type === 'file' &&
      e.path.endsWith('.parquet') &&
      (name(e.path).startsWith(`${split}-`) || name(e.path) === `${split}.parquet`),
  );
  if (files.length === 0 && entries.some((e) => e.type === 'directory' && name(e.path) === split)) {
    files = (await list(folder ? `${folder}/${split}` : split)).filter((e) => e.type === 'file' && e.path.endsWith('.parquet'));
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
  const triplets: Triplet[] = [];
  let crc = 0;
  let bytes = 0;
  for (const path of paths) {
    const content = await readRequiredFile(files, path);
    crc = crc32(content, crc);
    bytes += content.length;
    for (const row of await readParquetTriplets(memoryFile(content, `${ref.repo}/${path}`))) triplets.push(row);
  }
  return { triplets, crc32: crc, bytes, paths };
}

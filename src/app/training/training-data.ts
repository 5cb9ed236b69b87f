// Training data, read and fingerprinted once for the page and the CLI: the rows (TSV or JSONL streamed through a
// byte-offset index, Parquet read by row groups, a Hub dataset's Parquet files, or bytes already in memory), and the count + CRC-32 that a resumed
// run checks (a moved or renamed file still resumes; other or reordered rows are refused).
import { readHubDatasetTriplets, type HubListing } from '../../io/hub/hub-dataset.ts';
import type { HubDatasetRef, BatchCacheEntry, TripletFormat, TripletsSummary } from '../../contract/training/data-sources.ts';
import { blobFile, type RandomAccessFile } from '../../io/random-access.ts';
import { indexTripletFile, type IndexOptions } from '../../io/triplets/triplet-index.ts';
import { cacheOnlySource, memoryTripletSource, type TripletSource } from '../../io/triplets/triplet-source.ts';
import { parseTripletsJsonl } from '../../io/triplets/triplets-jsonl.ts';
import { readParquetTriplets } from '../../io/triplets/triplets-parquet.ts';
import { parseTriplets, type Triplet } from '../../io/triplets/triplets.ts';
import {
  addTeacherLabel,
  teacherLabelSummary,
  teacherLabelTally,
  type TeacherLabelSummary,
} from '../../contract/training/teacher-labels.ts';
import type { TrainingData } from '../../train/splade/training-loop.ts';
import { crc32 } from '../../util/crc32.ts';
import type { Platform } from '../platform/platform.ts';

/** By name (.parquet, .jsonl / .ndjson, .tsv), else by content: a first non-blank `{` is JSON Lines, `PAR1` Parquet. */
export function tripletFormat(bytes: Uint8Array, name: string): TripletFormat {
  const lower = name.toLowerCase();
  if (lower.endsWith('.parquet')) return 'parquet';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  if (lower.endsWith('.tsv')) return 'tsv';
  if (bytes[0] === 0x50 && bytes[1] === 0x41 && bytes[2] === 0x52 && bytes[3] === 0x31) return 'parquet';
  for (const byte of bytes.subarray(0, 64)) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0xef || byte === 0xbb || byte === 0xbf)
      continue;
    return byte === 0x7b ? 'jsonl' : 'tsv';
  }
  return 'tsv';
}

export interface ReadTrainingData {
  data: TrainingData;
  summary: TripletsSummary;
}

/** The read data and its summary from the rows, their name and CRC-32, and what else the summary says. */
function readOf(
  name: string,
  source: TripletSource,
  crc: number,
  rest: Omit<TripletsSummary, 'name' | 'triplets' | 'negatives' | 'crc32'>,
): ReadTrainingData {
  const summary: TripletsSummary = { name, triplets: source.count, negatives: source.negatives, crc32: crc, ...rest };
  if (!summary.labels) delete summary.labels;
  const data: TrainingData = { source, fingerprint: { name, triplets: source.count, crc32: crc } };
  if (summary.labels) data.labels = summary.labels;
  return { data, summary };
}

/** The teacher labels of rows held in memory; `placeOf` names a row (by its index) for an error. */
function labelsOf(triplets: readonly Triplet[], placeOf: (row: number) => string): TeacherLabelSummary | undefined {
  const stats = teacherLabelTally();
  triplets.forEach((triplet, i) => addTeacherLabel(stats, triplet.label, () => placeOf(i)));
  return teacherLabelSummary(stats);
}

/** A Parquet row as the Parquet reader names it: its file and its row, counting from 0. */
function parquetRow(file: string, row: number): string {
  return `${file} row ${row} (counting from 0)`;
}

/** Rough bytes of rows held in memory (UTF-16 strings and their objects). */
function rowBytes(source: TripletSource, textBytes: number): number {
  return 2 * textBytes + 64 * source.count * (1 + source.negatives);
}

/**
 * Parses a triplet file already in memory, TSV (query, positive, negatives per line) or JSONL (query or anchor,
 * positive, negatives per object), strict UTF-8; `name` labels errors ("file line N: ..."). The hand-off, which copies
 * the file, reads this way; training streams (readTrainingFile).
 */
export function readTrainingData(bytes: Uint8Array, name: string): ReadTrainingData & { bytes: Uint8Array } {
  const format = tripletFormat(bytes, name);
  if (format === 'parquet') throw new Error(`${name}: a Parquet file is read with readTrainingFile`);
  const parsed = format === 'jsonl' ? parseTripletsJsonl(bytes, name) : parseTriplets(bytes, name);
  const source = memoryTripletSource(parsed.triplets);
  const read = readOf(baseName(name), source, crc32(bytes), {
    bytes: bytes.length,
    blankLines: parsed.blankLines,
    header: parsed.header,
    format,
    memoryBytes: rowBytes(source, bytes.length),
    streamed: false,
    labels: labelsOf(parsed.triplets, (i) => `${name} row ${i + 1}`),
  });
  return { ...read, bytes };
}

/**
 * Reads a triplet file by byte ranges: TSV and JSONL in one streaming pass that checks every line and keeps only an
 * index (a 1 GB file trains with flat memory; rows are read back when their batch is made), Parquet row group by
 * row group into memory. The CRC-32 is the whole file's either way.
 */
export async function readTrainingFile(file: RandomAccessFile, options: IndexOptions = {}): Promise<ReadTrainingData> {
  const name = baseName(file.name);
  const format = tripletFormat(await file.read(0, 64), file.name);
  if (format === 'parquet') {
    const triplets = await readParquetTriplets(file);
    const source = memoryTripletSource(triplets);
    let crc = 0;
    for (let at = 0; at < file.size; at += 4 * 2 ** 20) crc = crc32(await file.read(at, at + 4 * 2 ** 20), crc);
    return readOf(name, source, crc, {
      bytes: file.size,
      blankLines: 0,
      header: false,
      format,
      memoryBytes: rowBytes(source, file.size),
      streamed: false,
      labels: labelsOf(triplets, (i) => parquetRow(name, i)),
    });
  }
  const indexed = await indexTripletFile(file, format, options);
  const { source } = indexed;
  return readOf(name, source, indexed.crc32, {
    bytes: file.size,
    blankLines: indexed.blankLines,
    header: indexed.header,
    format,
    memoryBytes: source.indexBytes,
    streamed: true,
    labels: indexed.labels,
  });
}

/** The data of cached batches, without the file: a run resumes from the cache (a reloaded page). */
export function cachedTrainingData(entry: BatchCacheEntry): ReadTrainingData {
  const source = cacheOnlySource(entry.data.triplets, entry.shape.negatives ?? 1, entry.data.name);
  return readOf(entry.data.name, source, entry.data.crc32, {
    bytes: entry.bytes,
    blankLines: 0,
    header: false,
    format: 'tsv',
    memoryBytes: 0,
    streamed: false,
    cacheFingerprint: entry.fingerprint,
  });
}

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

/** A picked or dropped file, read as readTrainingFile reads (TSV and JSONL streamed slice by slice). */
export function readTrainingBlob(file: Blob, name: string, options: IndexOptions = {}): Promise<ReadTrainingData> {
  return readTrainingFile(blobFile(file, name), options);
}

/**
 * Training rows of a Hub dataset: the split's Parquet files of one subset, read through the platform's Hub source
 * (its cache) and held in memory; `listing` reaches the Hub's tree API (a mirror or a test server, a token).
 */
export async function readHubTrainingData(
  platform: Platform,
  ref: HubDatasetRef,
  listing: HubListing = {},
): Promise<ReadTrainingData & { paths: string[] }> {
  const files = await platform.files({
    kind: 'hub',
    id: ref.repo,
    repoType: 'dataset',
    revision: ref.revision,
    hubUrl: listing.baseUrl,
  });
  const read = await readHubDatasetTriplets(ref, files, listing);
  const source = memoryTripletSource(read.triplets);
  const name = `${ref.repo}${ref.subset ? `/${ref.subset}` : ''}:${ref.split ?? 'train'}`;
  return {
    ...readOf(name, source, read.crc32, {
      bytes: read.bytes,
      blankLines: 0,
      header: false,
      format: 'parquet',
      memoryBytes: rowBytes(source, read.bytes),
      streamed: false,
      labels: labelsOf(read.triplets, (index) => {
        // the row of its own file: the files' rows follow one another
        let [file, row] = [0, index];
        for (; file < read.rows.length - 1 && row >= read.rows[file]; file++) row -= read.rows[file];
        return parquetRow(`${ref.repo}/${read.paths[file]}`, row);
      }),
    }),
    paths: read.paths,
  };
}

// Training data, read and fingerprinted once for the page and the CLI: the triplets (TSV or JSONL), and the count +
// CRC-32 that a resumed run checks (a moved or renamed file still resumes; other or reordered triplets are refused).
import { parseTriplets } from '../io/triplets.ts';
import { parseTripletsJsonl } from '../io/triplets-jsonl.ts';
import type { TrainingData } from '../train/training-run.ts';
import { crc32 } from '../util/crc32.ts';

/** What the page shows of a read triplet file. */
export interface TripletsSummary {
  name: string;
  triplets: number;
  bytes: number;
  blankLines: number;
  header: boolean;
  crc32: number;
  format: TripletFormat;
}

/** How a triplet file is written: tab-separated lines, or JSON Lines. */
export type TripletFormat = 'tsv' | 'jsonl';

/** A .jsonl / .ndjson name, or content whose first non-blank character opens a JSON object, is JSON Lines. */
export function tripletFormat(bytes: Uint8Array, name: string): TripletFormat {
  const lower = name.toLowerCase();
  if (lower.endsWith('.parquet')) throw new Error(`${name}: Parquet triplets are not read yet; give a TSV or JSONL file`);
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  if (lower.endsWith('.tsv')) return 'tsv';
  for (const byte of bytes.subarray(0, 64)) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0xef || byte === 0xbb || byte === 0xbf) continue;
    return byte === 0x7b ? 'jsonl' : 'tsv';
  }
  return 'tsv';
}

export interface ReadTrainingData {
  data: TrainingData;
  summary: TripletsSummary;
  /** The file as read (a hand-off copies it into its project). */
  bytes: Uint8Array;
}

/**
 * Parses a triplet file, TSV (query, positive, negative per line) or JSONL (query or anchor, positive, negative per
 * object), strict UTF-8; `name` labels errors ("file line N: ...").
 */
export function readTrainingData(bytes: Uint8Array, name: string): ReadTrainingData {
  const format = tripletFormat(bytes, name);
  const parsed = format === 'jsonl' ? parseTripletsJsonl(bytes, name) : parseTriplets(bytes, name);
  const fingerprint = { name: baseName(name), triplets: parsed.triplets.length, crc32: crc32(bytes) };
  return {
    bytes,
    data: { triplets: parsed.triplets, fingerprint },
    summary: { name: baseName(name), triplets: parsed.triplets.length, bytes: bytes.length, blankLines: parsed.blankLines, header: parsed.header, crc32: fingerprint.crc32, format },
  };
}

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

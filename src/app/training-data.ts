// Training data, read and fingerprinted once for the page and the CLI: the triplets, and the count + CRC-32 that a
// resumed run checks (a moved or renamed file still resumes; other or reordered triplets are refused).
import { parseTriplets } from '../io/triplets.ts';
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
}

export interface ReadTrainingData {
  data: TrainingData;
  summary: TripletsSummary;
  /** The file as read (a hand-off copies it into its project). */
  bytes: Uint8Array;
}

/** Parses a triplet TSV (query, positive, negative per line; strict UTF-8); `name` labels errors ("file line N: ..."). */
export function readTrainingData(bytes: Uint8Array, name: string): ReadTrainingData {
  const parsed = parseTriplets(bytes, name);
  const fingerprint = { name: baseName(name), triplets: parsed.triplets.length, crc32: crc32(bytes) };
  return {
    bytes,
    data: { triplets: parsed.triplets, fingerprint },
    summary: { name: baseName(name), triplets: parsed.triplets.length, bytes: bytes.length, blankLines: parsed.blankLines, header: parsed.header, crc32: fingerprint.crc32 },
  };
}

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

// A file read by byte ranges, never whole: a browser File (Blob.slice), bytes already in memory, or (Node) a file
// handle (random-access-node.ts). Streaming readers and the triplet index read through it.

export interface RandomAccessFile {
  /** Names the file in messages. */
  readonly name: string;
  readonly size: number;
  /** Bytes [start, end), end clamped to the size. */
  read(start: number, end: number): Promise<Uint8Array>;
  /** What changed since the file was opened (its size, its modification time), or null; absent: cannot tell. */
  changed?(): Promise<string | null>;
}

/** A Blob (a picked or dropped File) read slice by slice. */
export function blobFile(blob: Blob, name: string): RandomAccessFile {
  return {
    name,
    size: blob.size,
    async read(start, end) {
      return new Uint8Array(await blob.slice(start, Math.min(end, blob.size)).arrayBuffer());
    },
  };
}

/** Bytes in memory, as a RandomAccessFile (small files, tests). */
export function memoryFile(bytes: Uint8Array, name: string): RandomAccessFile {
  return {
    name,
    size: bytes.length,
    async read(start, end) {
      return bytes.subarray(start, Math.min(end, bytes.length));
    },
  };
}

// Training rows as a source read on demand: rows in memory, or rows of a file indexed by byte offsets so that a
// 1 GB file trains with flat memory (the index keeps 12 bytes per row, the rows stay on disk until a batch reads them).
import type { RandomAccessFile } from './random-access.ts';
import { TripletFormatError, type LineResult, type Triplet } from './triplets.ts';

export interface TripletSource {
  /** Rows (triplets) available. */
  readonly count: number;
  /** Negatives per row (1 for triplets; every row has as many). */
  readonly negatives: number;
  /** The rows at these indices (0-based, in the order asked). */
  read(indices: readonly number[]): Promise<Triplet[]>;
  /** Only the rows' count is known (a run's batches come from the batch cache; reading a row is an error). */
  readonly cacheOnly?: boolean;
}

/** A source whose rows are not at hand, only their count: training reads every batch from the batch cache. */
export function cacheOnlySource(count: number, negatives: number, name: string): TripletSource {
  return {
    count,
    negatives,
    cacheOnly: true,
    async read() {
      throw new Error(`the rows of ${name} are not loaded (only its cached batches are): pick the file again`);
    },
  };
}

/** Rows already parsed, held in memory. */
export function memoryTripletSource(triplets: readonly Triplet[]): TripletSource {
  if (triplets.length === 0) throw new Error('no triplets');
  return {
    count: triplets.length,
    negatives: 1 + (triplets[0].extraNegatives?.length ?? 0),
    async read(indices) {
      return indices.map((i) => {
        const row = triplets[i];
        if (!row) throw new RangeError(`row ${i} of ${triplets.length}`);
        return row;
      });
    },
  };
}

/** Parses one line of the indexed file again when a batch reads it. */
export type LineParser = (line: string, file: string, lineNumber: number) => LineResult;

/** Rows of a text file by their byte ranges (from indexTripletFile), parsed when read. */
export class IndexedTripletSource implements TripletSource {
  constructor(
    private readonly file: RandomAccessFile,
    private readonly parse: LineParser,
    /** Byte offset of each row's line. */
    private readonly starts: Float64Array,
    /** Byte length of each row's line (without its \n). */
    private readonly lengths: Uint32Array,
    /** 1-based line number of each row (messages). */
    private readonly lineNumbers: Uint32Array,
    readonly count: number,
    readonly negatives: number,
  ) {}

  /** Bytes the index itself holds. */
  get indexBytes(): number {
    return this.starts.byteLength + this.lengths.byteLength + this.lineNumbers.byteLength;
  }

  async read(indices: readonly number[]): Promise<Triplet[]> {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const rows: Triplet[] = [];
    for (const i of indices) {
      if (!(Number.isInteger(i) && i >= 0 && i < this.count))
        throw new RangeError(`row ${i} of ${this.count} in ${this.file.name}`);
      const bytes = await this.file.read(this.starts[i], this.starts[i] + this.lengths[i]);
      const line = this.lineNumbers[i];
      if (bytes.length !== this.lengths[i])
        throw new TripletFormatError(this.file.name, line, 'the file is shorter than when it was read: was it changed?');
      let text: string;
      try {
        text = decoder.decode(bytes);
      } catch {
        throw new TripletFormatError(this.file.name, line, 'no longer valid UTF-8: the file changed since it was read');
      }
      const result = this.parse(text, this.file.name, line);
      if (result.kind !== 'row')
        throw new TripletFormatError(this.file.name, line, 'no longer a row: the file changed since it was read');
      rows.push(result.triplet);
    }
    return rows;
  }
}

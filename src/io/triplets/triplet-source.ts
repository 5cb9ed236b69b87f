// Training rows as a source read on demand: rows in memory, or rows of a file indexed by byte offsets so that a
// 1 GB file trains with flat memory (the index keeps 20 bytes per row, the rows stay on disk until a batch reads them).
// A row read back must be the row indexed: its CRC-32 is checked, so a file rewritten while training stops the run.
import { crc32 } from '../../util/crc32.ts';
import type { RandomAccessFile } from '../random-access.ts';
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

/** What the index keeps of each row: where its line is, how long, which line, and the CRC-32 of its bytes. */
export interface IndexedRows {
  /** Byte offset of each row's line. */
  starts: Float64Array;
  /** Byte length of each row's line (without its line break). */
  lengths: Uint32Array;
  /** 1-based line number of each row (messages). */
  lineNumbers: Uint32Array;
  /** CRC-32 of each row's bytes, as indexed. */
  crcs: Uint32Array;
}

/** What a run that read a changed file is told: which line, and that its checkpoints are kept. */
export function changedFileMessage(what: string): string {
  return (
    `${what}: the file changed since training started reading it. Training stopped here and its checkpoints are ` +
    'kept: put the original file back and resume, or start a new run on the new file'
  );
}

/** Rows of a text file by their byte ranges (from indexTripletFile), parsed when read. */
export class IndexedTripletSource implements TripletSource {
  constructor(
    private readonly file: RandomAccessFile,
    private readonly parse: LineParser,
    private readonly rows: IndexedRows,
    readonly count: number,
    readonly negatives: number,
  ) {}

  /** Bytes the index itself holds. */
  get indexBytes(): number {
    const { starts, lengths, lineNumbers, crcs } = this.rows;
    return starts.byteLength + lengths.byteLength + lineNumbers.byteLength + crcs.byteLength;
  }

  async read(indices: readonly number[]): Promise<Triplet[]> {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const { starts, lengths, lineNumbers, crcs } = this.rows;
    const changed = await this.file.changed?.();
    if (changed) throw new Error(changedFileMessage(`${this.file.name} (${changed})`));
    const rows: Triplet[] = [];
    for (const i of indices) {
      if (!(Number.isInteger(i) && i >= 0 && i < this.count))
        throw new RangeError(`row ${i} of ${this.count} in ${this.file.name}`);
      const bytes = await this.file.read(starts[i], starts[i] + lengths[i]);
      const line = lineNumbers[i];
      if (bytes.length !== lengths[i] || crc32(bytes) !== crcs[i])
        throw new Error(changedFileMessage(`${this.file.name} line ${line}`));
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

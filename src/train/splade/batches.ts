// Triplet rows to fixed-shape training batches: a seeded shuffle per epoch (or file order), tokenization with padding masks, and a data
// position (epoch, index) that a checkpoint stores so a resumed run sees exactly the batches it would have seen.
import { BatchShape } from '../../contract/training/data-sources.ts';
import { stepsForEpochs } from '../../contract/training/recipe.ts';
import { DataPosition } from '../../contract/training/training-report.ts';
import type { TextTokenizer } from '../../io/tokenizer/tokenizer.ts';
import type { TripletSource } from '../../io/triplets/triplet-source.ts';
import { rowNegatives } from '../../io/triplets/triplets.ts';
import { Random } from '../../util/random.ts';
import type { TripletBatch } from './trainer.ts';

/** One batch and the triplets (indices into the file) it holds, in row order. */
export interface NumberedBatch {
  batch: TripletBatch;
  triplets: number[];
  /** Position of the batch's first triplet. */
  start: DataPosition;
}

/** The seed of one epoch's shuffle: the run's seed and the epoch mixed (so epochs differ and never repeat). */
function epochSeed(seed: number, epoch: number): number {
  let h = Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(epoch + 1, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  return (h ^ (h >>> 15)) >>> 0;
}

/** The order in which epoch `epoch` visits `count` triplets: a Fisher-Yates permutation from (seed, epoch), or file order. */
export function epochOrder(count: number, seed: number, epoch: number, dataOrder?: 'file'): Uint32Array {
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  if (dataOrder === 'file') return order;
  const random = new Random(epochSeed(seed, epoch));
  for (let i = count - 1; i > 0; i--) {
    const j = random.int(i + 1);
    const swap = order[i];
    order[i] = order[j];
    order[j] = swap;
  }
  return order;
}

/**
 * Writes one text's encoding into row `row` of (rows, T) ids and mask: truncated to T tokens as Hugging Face does
 * (content cut, [CLS]/[SEP] kept), then right-padded with the pad id under mask 0.
 */
function tokenizeRow(tokenizer: TextTokenizer, text: string, T: number, ids: Int32Array, mask: Uint8Array, row: number): void {
  const encoding = tokenizer.encode(text, { maxLength: T });
  if (encoding.ids.length > T) throw new Error(`tokenizer returned ${encoding.ids.length} ids for a maximum length of ${T}`);
  const base = row * T;
  ids.fill(tokenizer.specialIds.pad, base, base + T);
  mask.fill(0, base, base + T);
  encoding.ids.forEach((id, t) => {
    ids[base + t] = id;
    mask[base + t] = encoding.attentionMask[t] ? 1 : 0;
  });
}

/**
 * Endless batches over a triplet source (rows read when their batch is made). Each epoch visits every triplet once in its own seeded order; a batch that
 * reaches the end of an epoch takes its remaining rows from the start of the next one, so batches keep their fixed
 * size B and no triplet is dropped (such a batch can, rarely, hold one triplet twice).
 */
export class TripletBatches {
  private order: Uint32Array;
  private orderEpoch: number;
  private epoch: number;
  private index: number;

  constructor(
    private readonly source: TripletSource,
    private readonly tokenizer: TextTokenizer,
    readonly shape: BatchShape,
    readonly seed: number,
    start: DataPosition = { epoch: 0, index: 0 },
  ) {
    const n = source.count;
    const negatives = shape.negatives ?? 1;
    if (negatives !== source.negatives)
      throw new Error(
        `the run takes ${negatives} negative${negatives === 1 ? '' : 's'} per row, the data has ${source.negatives}`,
      );
    if (!Number.isInteger(shape.batchSize) || shape.batchSize < 1)
      throw new Error(`the batch size must be a positive integer, got ${shape.batchSize}`);
    if (shape.batchSize > n) throw new Error(`the batch size ${shape.batchSize} is larger than the ${n} triplets available`);
    for (const [name, T] of [
      ['query', shape.queryLength],
      ['document', shape.documentLength],
    ] as const) {
      if (!Number.isInteger(T) || T < 2)
        throw new Error(`the ${name} length must be an integer of at least 2 ([CLS] and [SEP]), got ${T}`);
    }
    if (
      !Number.isInteger(start.epoch) ||
      start.epoch < 0 ||
      !Number.isInteger(start.index) ||
      start.index < 0 ||
      start.index >= n
    ) {
      throw new Error(`data position (epoch ${start.epoch}, index ${start.index}) is outside a file of ${n} triplets`);
    }
    this.epoch = start.epoch;
    this.index = start.index;
    this.order = epochOrder(n, seed, start.epoch, shape.dataOrder);
    this.orderEpoch = start.epoch;
  }

  /** Where the next batch starts. */
  get position(): DataPosition {
    return { epoch: this.epoch, index: this.index };
  }

  /** Number of batches in `epochs` passes over the file (a partial last batch counts as one). */
  static stepsFor(epochs: number, triplets: number, batchSize: number): number {
    return stepsForEpochs(epochs, triplets, batchSize);
  }

  /** Moves past the next batch without reading or tokenizing it (its rows come from the batch cache); its rows. */
  skip(): number[] {
    const picked: number[] = [];
    while (picked.length < this.shape.batchSize) {
      if (this.orderEpoch !== this.epoch) {
        this.order = epochOrder(this.source.count, this.seed, this.epoch, this.shape.dataOrder);
        this.orderEpoch = this.epoch;
      }
      picked.push(this.order[this.index]);
      if (++this.index === this.source.count) {
        this.epoch++;
        this.index = 0;
      }
    }
    return picked;
  }

  /** Batches over the same rows from the same position, moving on their own (reading ahead). */
  fork(): TripletBatches {
    return new TripletBatches(this.source, this.tokenizer, this.shape, this.seed, this.position);
  }

  /** Documents per batch: the positives and every negative of each row. */
  get documentsPerBatch(): number {
    return this.shape.batchSize * (1 + (this.shape.negatives ?? 1));
  }

  /**
   * The next B rows, read from the source and tokenized: queries (B, Tq), then documents ((1 + negatives)·B, Td):
   * the positives, then each negative column in turn (sentence-transformers' candidate order); rows with teacher
   * labels give their labels too, (B, labels per row).
   */
  async next(): Promise<NumberedBatch> {
    const { batchSize: B, queryLength: Tq, documentLength: Td } = this.shape;
    const start = this.position;
    const picked = this.skip();
    const N = this.documentsPerBatch;
    const batch: TripletBatch = {
      queryIds: new Int32Array(B * Tq),
      queryMask: new Uint8Array(B * Tq),
      documentIds: new Int32Array(N * Td),
      documentMask: new Uint8Array(N * Td),
    };
    const rows = await this.source.read(picked);
    const width = rows[0]?.label?.length ?? 0;
    const teacher = width > 0 ? new Float32Array(B * width) : null;
    if (teacher) batch.teacher = teacher;
    rows.forEach((triplet, row) => {
      if (teacher) {
        const label = triplet.label;
        if (label?.length !== width)
          throw new Error(`row ${picked[row] + 1} has ${label?.length ?? 'no'} teacher labels, the first row ${width}`);
        teacher.set(label, row * width);
      }
      tokenizeRow(this.tokenizer, triplet.query, Tq, batch.queryIds, batch.queryMask, row);
      tokenizeRow(this.tokenizer, triplet.positive, Td, batch.documentIds, batch.documentMask, row);
      rowNegatives(triplet).forEach((negative, c) =>
        tokenizeRow(this.tokenizer, negative, Td, batch.documentIds, batch.documentMask, (1 + c) * B + row),
      );
    });
    return { batch, triplets: picked, start };
  }
}

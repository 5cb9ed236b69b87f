// Sequences to fixed-shape masked-LM batches (B, T): texts grouped into full blocks or one per line (run_mlm.py's two
// layouts), or pre-masked rows as given; a seeded order per epoch (or file order) and a data position, so a resumed
// run sees, and masks, exactly the batches an uninterrupted one would.
import type { DataPosition } from '../../contract/training/training-report.ts';
import { IGNORED_LABEL } from '../../contract/training/mlm-recipe.ts';
import { Random } from '../../util/random.ts';
import { epochOrder } from '../splade/batches.ts';
import { maskTokens, maskingSeed, type MaskingSettings } from './mlm-masking.ts';
import type { MlmBatch } from './mlm-trainer.ts';
import type { BatchStream } from '../step-loop.ts';

/** One sequence before batching: its ids (at most T), and, when pre-masked, its attention and labels. */
export interface MlmRow {
  ids: Int32Array;
  attention?: Uint8Array;
  labels?: Int32Array;
}

/** Documents' ids (each with its special tokens) concatenated and cut into blocks of exactly T; the rest dropped. */
export function groupIntoBlocks(documents: readonly ArrayLike<number>[], T: number): MlmRow[] {
  const blocks: MlmRow[] = [];
  let block = new Int32Array(T);
  let filled = 0;
  for (const ids of documents) {
    for (let i = 0; i < ids.length; i++) {
      block[filled++] = ids[i];
      if (filled === T) {
        blocks.push({ ids: block });
        block = new Int32Array(T);
        filled = 0;
      }
    }
  }
  return blocks;
}

/**
 * Endless batches of B rows: each epoch visits every row once in its own seeded order (or file order); a batch that
 * reaches the end of an epoch takes its remaining rows from the next one, so every batch holds B rows. Rows shorter
 * than T are right-padded (pad id, attention 0, label -100). Rows without labels are masked from the batch's seed.
 */
export class MlmBatches implements BatchStream<MlmBatch> {
  private order: Uint32Array;
  private orderEpoch: number;
  private epoch: number;
  private index: number;

  constructor(
    private readonly rows: readonly MlmRow[],
    private readonly shape: { batchSize: number; maxLength: number; dataOrder?: 'file'; padId: number },
    private readonly seed: number,
    private readonly masking: MaskingSettings | null,
    start: DataPosition = { epoch: 0, index: 0 },
  ) {
    const n = rows.length;
    if (n === 0) throw new Error('there are no sequences to train on');
    if (
      !Number.isInteger(start.epoch) ||
      start.epoch < 0 ||
      !Number.isInteger(start.index) ||
      start.index < 0 ||
      start.index >= n
    )
      throw new Error(`data position (epoch ${start.epoch}, index ${start.index}) is outside ${n} sequences`);
    this.epoch = start.epoch;
    this.index = start.index;
    this.order = epochOrder(n, seed, start.epoch, shape.dataOrder);
    this.orderEpoch = start.epoch;
  }

  /** Where the next batch starts. */
  get position(): DataPosition {
    return { epoch: this.epoch, index: this.index };
  }

  async next(): Promise<{ batch: MlmBatch; start: DataPosition }> {
    const { batchSize: B, maxLength: T, padId } = this.shape;
    const start = this.position;
    const batch: MlmBatch = {
      inputIds: new Int32Array(B * T).fill(padId),
      attentionMask: new Uint8Array(B * T),
      labels: new Int32Array(B * T).fill(IGNORED_LABEL),
    };
    for (let b = 0; b < B; b++) {
      if (this.orderEpoch !== this.epoch) {
        this.order = epochOrder(this.rows.length, this.seed, this.epoch, this.shape.dataOrder);
        this.orderEpoch = this.epoch;
      }
      const row = this.rows[this.order[this.index]];
      if (++this.index === this.rows.length) {
        this.epoch++;
        this.index = 0;
      }
      if (row.ids.length > T) throw new Error(`a sequence of ${row.ids.length} tokens is longer than the run's ${T}`);
      batch.inputIds.set(row.ids, b * T);
      if (row.attention) batch.attentionMask.set(row.attention, b * T);
      else batch.attentionMask.fill(1, b * T, b * T + row.ids.length);
      if (row.labels) batch.labels.set(row.labels, b * T);
    }
    if (this.masking) {
      const random = new Random(maskingSeed(this.seed, start.epoch, start.index));
      const masked = maskTokens(batch.inputIds, batch.attentionMask, this.masking, random);
      batch.inputIds = masked.inputIds;
      batch.labels = masked.labels;
    }
    return { batch, start };
  }
}

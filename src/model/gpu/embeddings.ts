// The embedding sum of one pass (word + position + token type lookups) and its gather backward into the tables,
// mirroring src/model/reference/encoder.ts: position ids per family, padding_idx rows left without lookup gradient.
import type { Tensor } from '../../gpu/tensor.ts';
import { Embedding, EmbeddingGatherPlan } from '../../kernels/embedding.ts';
import type { GpuModel } from '../gpu-model.ts';
import { P } from '../layout.ts';
import { positionIds } from '../position-ids.ts';
import type { Allocate } from './layers.ts';

interface Lookup {
  table: string; // internal parameter name
  embedding: Embedding;
  plan: EmbeddingGatherPlan; // ids (N) and the gather lists of the backward
  /** The table is frozen (DistilBERT's sinusoidal positions): no backward. */
  frozen: boolean;
}

export class GpuEmbeddings {
  readonly sum: Tensor; // (N, E): word + position + token-type rows, the embedding norm's input (E = d but for ALBERT)
  private readonly word: Lookup;
  private readonly position: Lookup | null;
  private readonly tokenType: Lookup | null;

  constructor(
    private readonly model: GpuModel,
    readonly B: number,
    readonly T: number,
    label: string,
    alloc: Allocate,
  ) {
    const { config, ctx } = model;
    const N = B * T;
    const d = config.embeddingSize;
    const lookup = (table: string, rows: number, paddingIdx: number, what: string, frozen = false): Lookup => ({
      table,
      embedding: new Embedding(ctx, { N, d, rows, parts: model.partRanges(table) }, `${label} ${what} embedding`),
      plan: new EmbeddingGatherPlan(ctx, N, rows, paddingIdx, `${label} ${what} ids`),
      frozen,
    });
    this.sum = alloc('embedding sum', [N, d]); // (N, E)
    // nn.Embedding(padding_idx): rows looked up with the pad id get no gradient from the lookup.
    this.word = lookup(P.wordEmbeddings, config.vocabSize, config.embeddingPaddingIdx, 'word');
    this.position =
      config.positions === 'rotary'
        ? null
        : lookup(
            P.positionEmbeddings,
            config.maxPositions,
            config.positions === 'roberta' ? config.padTokenId : -1,
            'position',
            config.sinusoidalPositions,
          );
    this.tokenType = config.typeVocabSize > 0 ? lookup(P.tokenTypeEmbeddings, config.typeVocabSize, -1, 'token type') : null;
  }

  /** Bytes of the id and gather-plan buffers (the sum is allocated through the pass's `alloc`). */
  get planBytes(): number {
    let bytes = 0;
    for (const { plan } of this.lookups())
      bytes += plan.ids.byteLength + plan.rows.byteLength + plan.offsets.byteLength + plan.positions.byteLength;
    return bytes;
  }

  /** Uploads ids (B, T), the derived position ids, token types (zeros when absent) and every gather plan. */
  setInputs(ids: Int32Array, tokenTypes?: Int32Array): void {
    const { config } = this.model;
    const N = this.B * this.T;
    this.word.plan.set(ids);
    if (this.position) this.position.plan.set(positionIds(config, ids, this.B, this.T));
    if (this.tokenType) {
      if (tokenTypes && tokenTypes.length !== N)
        throw new Error(`token types hold ${tokenTypes.length} ids, expected B·T = ${N}`);
      this.tokenType.plan.set(tokenTypes ?? new Int32Array(N));
    }
  }

  /** sum (N, E) = word[ids] + position[positions] + tokenType[types]. */
  forward(encoder: GPUCommandEncoder): void {
    let first = true;
    for (const l of this.lookups()) {
      l.embedding.forward(encoder, { out: this.sum, table: this.model.rowParts(l.table), ids: l.plan.ids, accumulate: !first });
      first = false;
    }
  }

  /** Every trained table's gradient += the gather of dsum (N, E) over its plan. */
  backward(encoder: GPUCommandEncoder, dsum: Tensor): void {
    for (const l of this.lookups())
      if (!l.frozen) l.embedding.backward(encoder, { dtable: this.model.drowParts(l.table), dout: dsum, plan: l.plan });
  }

  private lookups(): Lookup[] {
    return [this.word, this.position, this.tokenType].filter((l): l is Lookup => l !== null);
  }
}

// Texts to SPLADE sparse vectors on the GPU: tokenize, run the encoder and the fused SPLADE head (forward only),
// read back the pooled (B, V) rows and keep their non-zero entries. Passes are cached per padded length.
import type { GpuContext, Owned } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import type { TextTokenizer } from '../io/tokenizer/tokenizer.ts';
import { SpladeHead } from '../kernels/splade-head.ts';
import { pruneTopK, sparseFromDense, type SparseVector } from '../util/sparse-vector.ts';
import { GpuEncoderPass } from './gpu-encoder.ts';
import type { GpuModel } from './gpu-model.ts';
import { checkTokenizerFitsHead } from './load-model.ts';

export interface SpladeEncodeOptions {
  /** Total tokens per text, special tokens included (texts are truncated as Hugging Face does). */
  maxLength: number;
  /** Keep only the `topK` largest weights of each vector (0: keep all). */
  topK?: number;
  onProgress?: (done: number, total: number) => void;
  /** Checked between batches: a cancelled encoding stops there with the signal's reason. */
  signal?: AbortSignal;
}

/** A text's vector, and (from encodeWithOrigins) the winning token position of each of its active dimensions. */
export interface EncodedWithOrigins {
  vector: SparseVector;
  /** Parallel to vector.indices: the position in the text's tokens (special tokens included); empty from encode(). */
  origins: Uint32Array;
}

interface CachedPass {
  pass: GpuEncoderPass;
  head: SpladeHead;
  pooled: Tensor<'f32'>; // (B, V)
  argmax: Tensor<'u32'>; // (B, V)
}

/** Padded lengths are powers of two (at least 8, at most maxLength), so few passes are ever built. */
export function paddedLength(longest: number, maxLength: number): number {
  return Math.min(maxLength, Math.max(8, 2 ** Math.ceil(Math.log2(Math.max(1, longest)))));
}

export class SpladeTextEncoder {
  private readonly passes = new Map<number, Owned<CachedPass>>();

  constructor(
    private readonly ctx: GpuContext,
    readonly model: GpuModel,
    readonly tokenizer: TextTokenizer,
    /** Texts per GPU batch. */
    readonly batchSize = 8,
  ) {
    checkTokenizerFitsHead(tokenizer, model.config, 'SPLADE encoder');
  }

  /** Sparse vectors of `texts`, in order. */
  async encode(texts: readonly string[], options: SpladeEncodeOptions): Promise<SparseVector[]> {
    return (await this.run(texts, options, false)).map((e) => e.vector);
  }

  /**
   * Sparse vectors of `texts` with each active dimension's origin: the token position whose logit won the max pooling
   * (the GPU head's argmax; the first position on a tie), parallel to the vector's indices.
   */
  encodeWithOrigins(texts: readonly string[], options: SpladeEncodeOptions): Promise<EncodedWithOrigins[]> {
    return this.run(texts, options, true);
  }

  private async run(texts: readonly string[], options: SpladeEncodeOptions, origins: boolean): Promise<EncodedWithOrigins[]> {
    const out: EncodedWithOrigins[] = [];
    const V = this.model.config.vocabSize;
    for (let start = 0; start < texts.length; start += this.batchSize) {
      options.signal?.throwIfAborted();
      const chunk = texts.slice(start, start + this.batchSize);
      const encodings = chunk.map((text) => this.tokenizer.encode(text, { maxLength: options.maxLength }));
      const T = paddedLength(Math.max(...encodings.map((e) => e.ids.length)), options.maxLength);
      const cached = this.passFor(T);
      const B = this.batchSize;
      const ids = new Int32Array(B * T).fill(this.tokenizer.specialIds.pad);
      const mask = new Uint8Array(B * T);
      // Unused rows of a short last batch hold one pad token that is attended to; their outputs are dropped.
      for (let b = 0; b < B; b++) {
        const encoding = encodings[b];
        if (!encoding) {
          mask[b * T] = 1;
          continue;
        }
        encoding.ids.forEach((id, t) => {
          ids[b * T + t] = id;
          mask[b * T + t] = encoding.attentionMask[t];
        });
      }
      cached.pass.setInputs(ids, mask);
      await this.ctx.run(`encode ${chunk.length} texts (T=${T})`, (encoder) => {
        cached.pass.forward(encoder);
        cached.head.forward(encoder, {
          hidden: cached.pass.headHidden,
          mask: cached.pass.mask,
          weight: this.model.decoderWeight,
          bias: this.model.decoderBias,
          pooled: cached.pooled,
          argmax: cached.argmax,
        });
      });
      const pooled = await this.ctx.read(cached.pooled, chunk.length * V);
      const argmax = origins ? await this.ctx.read(cached.argmax, chunk.length * V) : null;
      for (let b = 0; b < chunk.length; b++) {
        const full = sparseFromDense(pooled.subarray(b * V, (b + 1) * V));
        const vector = options.topK ? pruneTopK(full, options.topK) : full;
        out.push({ vector, origins: argmax ? vector.indices.map((id) => argmax[b * V + id]) : new Uint32Array(0) });
      }
      options.onProgress?.(out.length, texts.length);
    }
    return out;
  }

  /** Frees the GPU buffers of every pass built so far (the model itself belongs to the caller). */
  destroy(): void {
    for (const pass of this.passes.values()) pass.destroy();
    this.passes.clear();
  }

  private passFor(T: number): CachedPass {
    const cached = this.passes.get(T);
    if (cached) return cached.value;
    const { embeddingSize: d, vocabSize: V } = this.model.config; // d: the decoder rows' width
    const B = this.batchSize;
    const built = this.ctx.owned(() => ({
      pass: new GpuEncoderPass(this.model, B, T, `encode T=${T}`),
      head: new SpladeHead(this.ctx, { B, T, d, V, parts: this.model.decoderParts }),
      pooled: this.ctx.tensor(`encode pooled T=${T}`, [B, V], 'f32'),
      argmax: this.ctx.tensor(`encode argmax T=${T}`, [B, V], 'u32'),
    }));
    this.passes.set(T, built);
    return built.value;
  }
}

// An opened model on the GPU, for every forward-only use case: its head as loaded (statistics, and the source of
// W_head / k), the whole encoder whose head holds W_head / k for the current k, and SPLADE text encoding.
import type { GpuContext, Owned } from '../../gpu/context.ts';
import { wholeMatrix } from '../../gpu/row-parts.ts';
import { GpuModel } from '../../model/gpu-model.ts';
import { decoderWeightName } from '../../model/layout.ts';
import { SpladeTextEncoder, type EncodedWithOrigins } from '../../model/splade-encoder.ts';
import type { SparseEncoder } from '../../retrieval/evaluate.ts';
import { pruneTopK, sparseDot, sparseFromEntries, type SparseVector } from '../../util/sparse-vector.ts';
import { staticQueryEntries } from '../../model/static-query-lookup.ts';
import type { HostTensor } from '../../io/host-tensor.ts';
import { HeadMeter } from '../../model/head-meter.ts';
import { PreviewResult, type HeadStatsPair } from '../../contract/model/model-results.ts';
import { EVAL_LIMITS, checkK, checkRange } from '../../contract/limits.ts';
import { openModelRef, type OpenModelOptions, type OpenedModel, type OpenedWeights } from './open-model.ts';
import type { FilesRef, Platform } from '../platform/platform.ts';
import { checkEncodeRequest, type EncodeRequest } from '../../contract/model/model-requests.ts';
import { maxSequenceTokens } from '../../contract/model/max-tokens.ts';
import { summarizeSparse } from './sparse-summary.ts';

export type { HeadStatsPair };

/** Progress after each batch, and a signal checked between batches. */
export interface EncodeProgress {
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface ModelSessionOptions {
  /** Texts per GPU batch when encoding. */
  batchSize?: number;
  /** Seed of the row pairs sampled for anisotropy. */
  seed?: number;
  /** What the head statistics come from, for captions. */
  provenance?: string;
}

/** W_head of opened weights (the word embeddings when tied). */
export function headOf(model: OpenedWeights): HostTensor {
  const head = model.params.get(decoderWeightName(model.config));
  if (!head) throw new Error(`${model.name}: the model has no MLM decoder matrix (${decoderWeightName(model.config)})`);
  return head;
}

/** What a head's statistics come from, for captions. */
export function headProvenance(model: OpenedWeights): string {
  return `${model.name}, W_head ${model.config.vocabSize} x ${model.config.embeddingSize}`;
}

/** Token of every vocabulary id of a model (ids its tokenizer lacks are named "[unused id N]"). */
export function vocabularyOf(model: OpenedModel): string[] {
  return Array.from({ length: model.config.vocabSize }, (_, id) => model.tokenizer.idToToken(id) ?? `[unused id ${id}]`);
}

export class ModelSession {
  /** The k whose W_head / k the encoder's head holds now. */
  private currentK = 1;

  private constructor(
    private readonly ctx: GpuContext,
    readonly model: OpenedModel,
    readonly head: HeadMeter,
    private readonly gpuModel: Owned<GpuModel>,
    readonly encoder: SpladeTextEncoder,
  ) {}

  /** Uploads the model and its head as loaded. Everything it allocates is freed by destroy(). */
  static async open(ctx: GpuContext, model: OpenedModel, options: ModelSessionOptions = {}): Promise<ModelSession> {
    const batchSize = checkRange(options.batchSize ?? 8, EVAL_LIMITS.batchSize, 'The batch size');
    const head = HeadMeter.upload(ctx, headOf(model), {
      seed: options.seed,
      provenance: options.provenance ?? headProvenance(model),
    });
    try {
      const gpuModel = ctx.owned(() => GpuModel.upload(ctx, model.config, model.params, { gradients: false }));
      await ctx.sync();
      return new ModelSession(ctx, model, head, gpuModel, new SpladeTextEncoder(ctx, gpuModel.value, model.tokenizer, batchSize));
    } catch (error) {
      head.destroy();
      throw error;
    }
  }

  get k(): number {
    return this.currentK;
  }

  /** Puts W_head / k into the encoder's head (from the head as loaded, so ks never compound). */
  async setK(k: number): Promise<void> {
    checkK(k);
    if (k === this.currentK) return;
    await this.ctx.run(`W_head / ${k}`, (encoder) => this.head.recordDivided(encoder, this.gpuModel.value.decoderWeight, k));
    this.currentK = k;
  }

  /** Statistics of W_head and W_head / k on shared bins. */
  measureHead(k: number, options: { logNorm?: boolean } = {}): Promise<HeadStatsPair> {
    return this.head.measure(k, options);
  }

  /** Sparse vectors of `texts` under k (batched forward passes; progress after each batch; cancel between them). */
  async encode(texts: readonly string[], request: EncodeRequest, options: EncodeProgress = {}): Promise<SparseVector[]> {
    const { k, maxLength, topK } = checkEncodeRequest(request);
    await this.setK(k);
    const vectors = await this.encoder.encode(texts, {
      maxLength: this.fittedLength(maxLength),
      topK,
      onProgress: options.onProgress,
      signal: options.signal,
    });
    return vectors.map((vector) => this.pooled(vector));
  }

  /**
   * The kernel's max of log(1 + relu) under the folder's SpladePooling: log1p_relu takes one more log1p, which commutes
   * with the max (log1p rises), so it is applied to the pooled weights; top-k pruning keeps the same terms.
   */
  private pooled(vector: SparseVector): SparseVector {
    if (this.model.activation !== 'log1p_relu') return vector;
    return { indices: vector.indices, values: vector.values.map((w) => Math.log1p(w)) };
  }

  /** Vectors of `texts` under k with each active dimension's winning token position (the expansion audit). */
  async encodeWithOrigins(texts: readonly string[], request: EncodeRequest): Promise<EncodedWithOrigins[]> {
    const { k, maxLength, topK } = checkEncodeRequest(request);
    await this.setK(k);
    const encoded = await this.encoder.encodeWithOrigins(texts, { maxLength: this.fittedLength(maxLength), topK });
    return encoded.map(({ vector, origins }) => ({ vector: this.pooled(vector), origins }));
  }

  /** A requested length capped at what the model encodes (sentence-transformers caps max_seq_length alike). */
  fittedLength(maxLength: number): number {
    return Math.min(maxLength, maxSequenceTokens(this.model.config));
  }

  /**
   * Vectors of queries: an inference-free model's are their tokens weighted by its static table (a lookup of
   * staticQueryIds: no special tokens, the query length does not apply), any other model's as encode() makes them.
   */
  async encodeQueries(texts: readonly string[], request: EncodeRequest, options: EncodeProgress = {}): Promise<SparseVector[]> {
    const weights = this.model.queryWeights;
    if (!weights) return this.encode(texts, request, options);
    const { topK } = checkEncodeRequest(request);
    const vectors = texts.map((text) => {
      const vector = sparseFromEntries(staticQueryEntries(weights, this.staticQueryIds(text)));
      return topK > 0 ? pruneTopK(vector, topK) : vector;
    });
    options.onProgress?.(texts.length, texts.length);
    return vectors;
  }

  /**
   * The token ids a static query looks up, as sentence-transformers' SparseStaticEmbedding tokenizes: no special
   * tokens, truncated at the query tokenizer's model_max_length (none when it names none).
   */
  staticQueryIds(text: string): number[] {
    const maxTokens = this.model.staticQueryTokens;
    return this.model.tokenizer.encode(text, { addSpecialTokens: false, ...(maxTokens ? { maxLength: maxTokens } : {}) }).ids;
  }

  /** Whether queries are a static table's vectors (an inference-free model). */
  get inferenceFree(): boolean {
    return this.model.queryWeights !== undefined;
  }

  /** The SPLADE vectors of a query and a document under k, their top terms and their score. */
  async preview(query: string, doc: string, k: number, options: { topTerms: number; maxLength: number }): Promise<PreviewResult> {
    const [q, d] = await this.encode([query, doc], { k, maxLength: options.maxLength });
    const tokenizer = this.model.tokenizer;
    return {
      k,
      query: summarizeSparse(query, q, tokenizer, options.topTerms),
      doc: summarizeSparse(doc, d, tokenizer, options.topTerms),
      score: sparseDot(q, d),
    };
  }

  /** The retrieval view under k: queries and documents with their own maximum lengths, optionally pruned. */
  sparseEncoder(k: number, lengths: { query: number; document: number }, prune = 0, signal?: AbortSignal): SparseEncoder {
    return {
      vocab: this.vocabulary(),
      encodeQueries: (texts, onProgress) =>
        this.encodeQueries(texts, { k, maxLength: lengths.query, topK: prune }, { onProgress, signal }),
      encodeDocuments: (texts, onProgress) =>
        this.encode(texts, { k, maxLength: lengths.document, topK: prune }, { onProgress, signal }),
    };
  }

  /** Token of every vocabulary id (ids the tokenizer lacks are named "[unused id N]"). */
  vocabulary(): string[] {
    return vocabularyOf(this.model);
  }

  /** The decoder matrix the encoder uses now (W_head / k), for tests and exports. */
  get decoderWeight() {
    return wholeMatrix(this.gpuModel.value.decoderWeight, 'the session decoder');
  }

  /** Frees every GPU buffer of this session (encoder passes, model, head as loaded). */
  destroy(): void {
    this.encoder.destroy();
    this.gpuModel.destroy();
    this.head.destroy();
  }
}

export interface OpenSessionOptions extends ModelSessionOptions, Omit<OpenModelOptions, 'limits'> {}

/** Opens `ref` on the platform and puts it on `ctx`: the one way every use case gets a model onto the GPU. */
export async function openModelSession(
  ctx: GpuContext,
  platform: Platform,
  ref: FilesRef,
  options: OpenSessionOptions = {},
): Promise<ModelSession> {
  const model = await openModelRef(platform, ref, { ...options, limits: ctx.limits });
  return ModelSession.open(ctx, model, options);
}

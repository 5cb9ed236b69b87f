// Probe texts a run encodes on the GPU every N steps while it trains (top terms with weights, active dimensions and
// every query-document score), so that a user sees what the model does to real text as it learns.
import type { GpuContext } from '../../gpu/context.ts';
import type { TextTokenizer } from '../../io/tokenizer/tokenizer.ts';
import type { GpuModel } from '../../model/gpu-model.ts';
import { SpladeTextEncoder } from '../../model/splade-encoder.ts';
import { sparseDot, sparseFromEntries } from '../../util/sparse-vector.ts';
import { staticQueryEntries } from '../../model/static-query-lookup.ts';
import { summarizeSparse } from '../model/sparse-summary.ts';
import { PROBE_LIMITS, ProbeSnapshot, ProbeText } from '../../contract/training/probes.ts';

/**
 * Encodes a run's probes with the model being trained (queries at the query length, documents at the document
 * length); an inference-free run's queries are their tokens' static weights, as it trains and searches with them. Its
 * GPU buffers are made inside the run's owned scope and freed with the run.
 */
export class TrainingProbes {
  private readonly encoder: SpladeTextEncoder;

  constructor(
    ctx: GpuContext,
    model: GpuModel,
    private readonly tokenizer: TextTokenizer,
    private readonly probes: readonly ProbeText[],
    private readonly lengths: { query: number; document: number },
    private readonly topTerms: number = PROBE_LIMITS.topTerms,
    private readonly queryWeights?: Float32Array,
  ) {
    const most = Math.max(1, ...(['query', 'document'] as const).map((role) => probes.filter((p) => p.role === role).length));
    this.encoder = new SpladeTextEncoder(ctx, model, tokenizer, Math.min(8, most));
  }

  /** The probes' vectors at `step`; `queryWeights`: an inference-free run's table as trained so far (default: as given). */
  async take(step: number, queryWeights?: Float32Array): Promise<ProbeSnapshot> {
    const texts = (role: ProbeText['role']) => this.probes.filter((p) => p.role === role).map((p) => p.text);
    const weights = queryWeights ?? this.queryWeights;
    const queries = weights
      ? texts('query').map((text) =>
          sparseFromEntries(staticQueryEntries(weights, this.tokenizer.encode(text, { maxLength: this.lengths.query }).ids)),
        )
      : await this.encoder.encode(texts('query'), { maxLength: this.lengths.query });
    const documents = await this.encoder.encode(texts('document'), { maxLength: this.lengths.document });
    const vectors = { query: queries.values(), document: documents.values() };
    const probes = this.probes.map(({ role, text }) => ({
      role,
      ...summarizeSparse(text, vectors[role].next().value!, this.tokenizer, this.topTerms),
    }));
    return { step, probes, scores: queries.map((q) => documents.map((d) => sparseDot(q, d))) };
  }
}

// Probe texts a run encodes on the GPU every N steps while it trains (top terms with weights, active dimensions and
// every query-document score), so that a user sees what the model does to real text as it learns.
import type { GpuContext } from '../gpu/context.ts';
import type { TextTokenizer } from '../io/tokenizer.ts';
import type { GpuModel } from '../model/gpu-model.ts';
import { SpladeTextEncoder } from '../model/splade-encoder.ts';
import { sparseDot } from '../util/sparse-vector.ts';
import { InvalidRequestError } from '../contract/limits.ts';
import { summarizeSparse, type SparseSummary } from './sparse-summary.ts';

export interface ProbeText {
  role: 'query' | 'document';
  text: string;
}

/** Two questions and a passage answering each: a healthy model scores each query highest with its own passage. */
export const DEFAULT_PROBES: readonly ProbeText[] = [
  { role: 'query', text: 'what causes the seasons on earth' },
  { role: 'query', text: 'how do vaccines protect against disease' },
  {
    role: 'document',
    text: "The seasons are caused by the tilt of Earth's axis, which changes how directly sunlight reaches each hemisphere during the year.",
  },
  {
    role: 'document',
    text: 'A vaccine exposes the immune system to a harmless part of a germ, so that it learns to recognise and fight the real infection.',
  },
];

export const PROBE_LIMITS = { texts: 16, characters: 2000, topTerms: 10 } as const;

/** One probe text as the model encodes it at a step. */
export interface ProbeView extends SparseSummary {
  role: ProbeText['role'];
}

/** Every probe at one step: views in the order given, and the score of every query probe with every document probe. */
export interface ProbeSnapshot {
  /** Steps taken when it was taken (0: before training). */
  step: number;
  probes: ProbeView[];
  /** scores[i][j]: the i-th query probe against the j-th document probe (dot product of the sparse vectors). */
  scores: number[][];
}

/** Checks probe texts (count, length, not blank) before a run starts. */
export function checkProbes(probes: readonly ProbeText[]): ProbeText[] {
  if (probes.length > PROBE_LIMITS.texts)
    throw new InvalidRequestError(`At most ${PROBE_LIMITS.texts} probe texts, got ${probes.length}`);
  return probes.map(({ role, text }, i) => {
    const trimmed = text.trim();
    if (!trimmed) throw new InvalidRequestError(`Probe text ${i + 1} is blank`);
    if (trimmed.length > PROBE_LIMITS.characters)
      throw new InvalidRequestError(`Probe text ${i + 1} has ${trimmed.length} characters; at most ${PROBE_LIMITS.characters}`);
    if (role !== 'query' && role !== 'document')
      throw new InvalidRequestError(`Probe text ${i + 1} has role "${String(role)}"; use query or document`);
    return { role, text: trimmed };
  });
}

/**
 * Encodes a run's probes with the model being trained (queries at the query length, documents at the document
 * length). Its GPU buffers are made inside the run's owned scope and freed with the run.
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
  ) {
    const most = Math.max(1, ...(['query', 'document'] as const).map((role) => probes.filter((p) => p.role === role).length));
    this.encoder = new SpladeTextEncoder(ctx, model, tokenizer, Math.min(8, most));
  }

  async take(step: number): Promise<ProbeSnapshot> {
    const texts = (role: ProbeText['role']) => this.probes.filter((p) => p.role === role).map((p) => p.text);
    const queries = await this.encoder.encode(texts('query'), { maxLength: this.lengths.query });
    const documents = await this.encoder.encode(texts('document'), { maxLength: this.lengths.document });
    const vectors = { query: queries.values(), document: documents.values() };
    const probes = this.probes.map(({ role, text }) => ({
      role,
      ...summarizeSparse(text, vectors[role].next().value!, this.tokenizer, this.topTerms),
    }));
    return { step, probes, scores: queries.map((q) => documents.map((d) => sparseDot(q, d))) };
  }
}

// Scores of B queries against N in-batch documents (dense pooled vectors) and their gradients, as three products of
// the matmul family (shaders/matmul*.wgsl): the CPU/GPU variant, vec4 loads and dispatch-budget splits come with it.
import type { GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { Matmul } from './matmul.ts';
import { expectTensor } from './shape-check.ts';

export interface SparseScoresBackwardArgs {
  queries: Tensor; // (B, V)
  docs: Tensor; // (N, V)
  dscores: Tensor; // (B, N)
  dqueries: Tensor; // (B, V), accumulated into
  ddocs: Tensor; // (N, V), accumulated into
}

/**
 * scores = queries · docsᵀ; dqueries += dscores · docs; ddocs += dscoresᵀ · queries. One workgroup per dot product
 * (the first design) spent most of its time in 256-lane tree reductions: on SwiftShader a B = 70, N = 140, V = 33
 * forward took 6 s and a B = 32, N = 64, V = 30522 one 3 s; the register-blocked products take milliseconds.
 */
export class SparseScores {
  private readonly scoring: Matmul;
  private readonly queryGradient: Matmul;
  private readonly documentGradient: Matmul;

  constructor(
    ctx: GpuContext,
    readonly B: number,
    readonly N: number,
    readonly V: number,
  ) {
    const label = (what: string) => `sparse scores ${what} B=${B} N=${N} V=${V}`;
    this.scoring = new Matmul(ctx, { M: B, N, K: V, layout: 'nt' }, { label: label('forward') });
    this.queryGradient = new Matmul(ctx, { M: B, N: V, K: N, layout: 'nn', accumulate: true }, { label: label('dqueries') });
    this.documentGradient = new Matmul(ctx, { M: N, N: V, K: B, layout: 'tn', accumulate: true }, { label: label('ddocs') });
  }

  /** scores (B, N) = queries (B, V) · docs (N, V)ᵀ. */
  forward(encoder: GPUCommandEncoder, { queries, docs, scores }: { queries: Tensor; docs: Tensor; scores: Tensor }): void {
    this.check(queries, docs, scores);
    this.scoring.record(encoder, { a: queries, b: docs, out: scores });
  }

  /** dqueries (B, V) += dscores · docs; ddocs (N, V) += dscoresᵀ · queries. */
  backward(encoder: GPUCommandEncoder, args: SparseScoresBackwardArgs): void {
    const { queries, docs, dscores, dqueries, ddocs } = args;
    this.check(queries, docs, dscores);
    expectTensor('sparse_scores', 'dqueries', dqueries, [this.B, this.V]);
    expectTensor('sparse_scores', 'ddocs', ddocs, [this.N, this.V]);
    this.queryGradient.record(encoder, { a: dscores, b: docs, out: dqueries });
    this.documentGradient.record(encoder, { a: dscores, b: queries, out: ddocs });
  }

  private check(queries: Tensor, docs: Tensor, scores: Tensor): void {
    expectTensor('sparse_scores', 'queries', queries, [this.B, this.V]);
    expectTensor('sparse_scores', 'docs', docs, [this.N, this.V]);
    expectTensor('sparse_scores', 'scores', scores, [this.B, this.N]);
  }
}

// Scores of B queries against N in-batch documents (dense pooled vectors), forward and backward (shaders/sparse_scores.wgsl).
import type { GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/sparse_scores.wgsl?raw';
import { expectTensor } from './shape-check.ts';

const WORKGROUP = 256;
const spec = (entryPoint: string) => ({ family: 'sparse_scores', source, entryPoint, constants: { WORKGROUP } });

export interface SparseScoresBackwardArgs {
  queries: Tensor; // (B, V)
  docs: Tensor; // (N, V)
  dscores: Tensor; // (B, N)
  dqueries: Tensor; // (B, V), accumulated into
  ddocs: Tensor; // (N, V), accumulated into
}

export class SparseScores {
  private readonly params: GPUBuffer;

  constructor(private readonly ctx: GpuContext, readonly B: number, readonly N: number, readonly V: number) {
    this.params = ctx.uniform(`sparse_scores B${B} N${N} V${V}`, 3);
    ctx.writeUniform(this.params, [B, N, V]);
  }

  private get shapes(): string {
    return `B=${this.B} N=${this.N} V=${this.V}`;
  }

  /** scores (B, N) = queries (B, V) · docs (N, V)ᵀ. */
  forward(encoder: GPUCommandEncoder, { queries, docs, scores }: { queries: Tensor; docs: Tensor; scores: Tensor }): void {
    this.check(queries, docs, scores);
    this.ctx.dispatch(encoder, spec('scores_forward'), [this.params, queries, docs, scores], [this.N, this.B], this.shapes);
  }

  /** dqueries (B, V) += dscores · docs; ddocs (N, V) += dscoresᵀ · queries. */
  backward(encoder: GPUCommandEncoder, args: SparseScoresBackwardArgs): void {
    const { queries, docs, dscores, dqueries, ddocs } = args;
    this.check(queries, docs, dscores);
    expectTensor('sparse_scores', 'dqueries', dqueries, [this.B, this.V]);
    expectTensor('sparse_scores', 'ddocs', ddocs, [this.N, this.V]);
    const groups = [Math.ceil(this.V / WORKGROUP), this.B + this.N] as const;
    this.ctx.dispatch(
      encoder,
      spec('scores_backward'),
      [this.params, queries, docs, dscores, dqueries, ddocs],
      groups,
      this.shapes,
    );
  }

  private check(queries: Tensor, docs: Tensor, scores: Tensor): void {
    expectTensor('sparse_scores', 'queries', queries, [this.B, this.V]);
    expectTensor('sparse_scores', 'docs', docs, [this.N, this.V]);
    expectTensor('sparse_scores', 'scores', scores, [this.B, this.N]);
  }
}

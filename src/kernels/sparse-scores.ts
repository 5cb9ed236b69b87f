// Scores of B queries against N in-batch documents (dense pooled vectors), forward and backward (shaders/sparse_scores.wgsl).
import type { GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/sparse_scores.wgsl?raw';
import { expectTensor } from './shape-check.ts';

const WORKGROUP = 256;
const spec = (entryPoint: string) => ({ family: 'sparse_scores', source, entryPoint, constants: { WORKGROUP } });

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
  forward(encoder: GPUCommandEncoder, queries: Tensor, docs: Tensor, scores: Tensor): void {
    this.check(queries, docs, scores);
    this.ctx.dispatch(encoder, spec('scores_forward'), [this.params, queries, docs, scores], [this.N, this.B], this.shapes);
  }

  /** dQueries (B, V) += dScores · docs; dDocs (N, V) += dScoresᵀ · queries. */
  backward(encoder: GPUCommandEncoder, queries: Tensor, docs: Tensor, dScores: Tensor, dQueries: Tensor, dDocs: Tensor): void {
    this.check(queries, docs, dScores);
    expectTensor('sparse_scores', 'dQueries', dQueries, [this.B, this.V]);
    expectTensor('sparse_scores', 'dDocs', dDocs, [this.N, this.V]);
    const groups = [Math.ceil(this.V / WORKGROUP), this.B + this.N] as const;
    this.ctx.dispatch(
      encoder,
      spec('scores_backward'),
      [this.params, queries, docs, dScores, dQueries, dDocs],
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

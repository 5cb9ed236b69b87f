// Inference-free SPLADE's trainable query table on the GPU (shaders/static_query_table.wgsl): the batch's query vectors
// from the table and each query's token presence, and backward the table's gradient with an optional L1 on the queries.
import { f32Bits, grid1d, type GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/static_query_table.wgsl?raw';
import { expectTensor } from './shape-check.ts';

const WORKGROUP = 256;
const spec = (entryPoint: string) => ({ family: 'static_query_table', source, entryPoint, constants: { WORKGROUP } });

export class StaticQueryTable {
  private readonly params: GPUBuffer;
  /** (V) each token's share of the L1, summed into the loss slot. */
  private readonly l1Parts: Tensor<'f32'>;

  /** B queries over a vocabulary of V; the unweighted L1 goes to losses[slot]. */
  constructor(
    private readonly ctx: GpuContext,
    readonly B: number,
    readonly V: number,
    readonly slot: number,
  ) {
    this.params = ctx.uniform(`static_query_table B${B} V${V}`, 4);
    this.l1Parts = ctx.tensor(`static_query_table.l1_parts V${V}`, [V], 'f32');
    this.setLambda(0);
  }

  /** The L1's weight λ (after the ramp); scales its gradient only. */
  setLambda(lambda: number): void {
    this.ctx.writeUniform(this.params, [this.B, this.V, this.slot, f32Bits(lambda)]);
  }

  /** vectors (B, V) = presence (B, V) · weights (V). */
  vectors(encoder: GPUCommandEncoder, io: { weights: Tensor; presence: Tensor; vectors: Tensor }): void {
    this.check(io);
    expectTensor('static_query_table', 'vectors', io.vectors, [this.B, this.V]);
    const grid = grid1d(this.B * this.V, WORKGROUP, this.ctx.limits.maxComputeWorkgroupsPerDimension);
    this.ctx.dispatch(
      encoder,
      spec('static_table_vectors'),
      [this.params, io.weights, io.presence, io.vectors],
      grid,
      this.shapes(),
    );
  }

  /**
   * dweights (V) += Σ_b presence · dvectors + λ · count · sign(w) / B; losses[slot] = Σ_v |w_v| · count_v / B (count_v:
   * the queries holding token v).
   */
  backward(
    encoder: GPUCommandEncoder,
    io: { weights: Tensor; presence: Tensor; dvectors: Tensor; dweights: Tensor; losses: Tensor },
  ): void {
    this.check(io);
    expectTensor('static_query_table', 'dvectors', io.dvectors, [this.B, this.V]);
    expectTensor('static_query_table', 'dweights', io.dweights, [this.V]);
    if (io.losses.size <= this.slot) throw new Error(`static_query_table: losses ${io.losses} has no slot ${this.slot}`);
    const grid = grid1d(this.V, WORKGROUP, this.ctx.limits.maxComputeWorkgroupsPerDimension);
    this.ctx.dispatch(
      encoder,
      spec('static_table_backward'),
      [this.params, io.weights, io.presence, null, io.dvectors, io.dweights, this.l1Parts],
      grid,
      this.shapes(),
    );
    this.ctx.dispatch(
      encoder,
      spec('static_table_l1'),
      [this.params, null, null, null, null, null, this.l1Parts, io.losses],
      [1],
      this.shapes(),
    );
  }

  private check(io: { weights: Tensor; presence: Tensor }): void {
    expectTensor('static_query_table', 'weights', io.weights, [this.V]);
    expectTensor('static_query_table', 'presence', io.presence, [this.B, this.V]);
  }

  private shapes(): string {
    return `B=${this.B} V=${this.V}`;
  }
}

// A linear layer y = x·Wᵀ + b (PyTorch [out, in] weights) on the GPU for one (N, C) -> (N, OC), forward and backward,
// composed from the matmul family and BiasAdd. Weights and gradients are passed per call, so layers of one shape share it.
import type { GpuContext } from '../../gpu/context.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { BiasAdd } from '../../kernels/activations.ts';
import { Matmul } from '../../kernels/matmul.ts';

export interface LinearForwardArgs {
  out: Tensor; // (N, OC), overwritten
  inp: Tensor; // (N, C)
  weight: Tensor; // (OC, C)
  bias: Tensor | null; // (OC)
}

export interface LinearBackwardArgs {
  /** (N, C): overwritten, or added into with accumulateInput; null skips the input gradient */
  dinp: Tensor | null;
  dweight: Tensor; // (OC, C), accumulated into
  dbias: Tensor | null; // (OC), accumulated into
  dout: Tensor; // (N, OC)
  inp: Tensor; // (N, C), forward's input
  weight: Tensor; // (OC, C)
  accumulateInput: boolean;
}

export class GpuLinear {
  private readonly forwardMatmul: Matmul; // (N, C)·(OC, C)ᵀ (+ b) -> (N, OC)
  private readonly inputMatmul: Matmul; // (N, OC)·(OC, C) -> (N, C), overwrites
  private readonly inputAccumulateMatmul: Matmul; // same, adds
  private readonly weightMatmul: Matmul; // (N, OC)ᵀ·(N, C) -> (OC, C), adds
  private readonly biasBackward: BiasAdd | null; // Σ_n dout (N, OC) -> (OC), adds

  constructor(
    ctx: GpuContext,
    readonly N: number,
    readonly C: number,
    readonly OC: number,
    readonly bias: boolean,
    readonly label: string,
  ) {
    this.forwardMatmul = new Matmul(ctx, { M: N, N: OC, K: C, layout: 'nt', bias }, { label: `${label} forward` });
    this.inputMatmul = new Matmul(ctx, { M: N, N: C, K: OC, layout: 'nn' }, { label: `${label} dinp` });
    this.inputAccumulateMatmul = new Matmul(
      ctx,
      { M: N, N: C, K: OC, layout: 'nn', accumulate: true },
      { label: `${label} dinp+=` },
    );
    this.weightMatmul = new Matmul(ctx, { M: OC, N: C, K: N, layout: 'tn', accumulate: true }, { label: `${label} dweight+=` });
    this.biasBackward = bias ? new BiasAdd(ctx, N, OC, { label: `${label} dbias+=` }) : null;
  }

  /** out (N, OC) = inp (N, C)·weight (OC, C)ᵀ + bias (OC); bias null exactly when built without one. */
  forward(encoder: GPUCommandEncoder, { out, inp, weight, bias }: LinearForwardArgs): void {
    this.forwardMatmul.record(encoder, { a: inp, b: weight, out, bias: bias ?? undefined });
  }

  /**
   * dweight (OC, C) += doutᵀ·inp, dbias (OC) += Σ_n dout, and dinp (N, C) = (or += with accumulateInput) dout·weight.
   * dinp may be null (nothing needs the input gradient). The parameter gradients are recorded first, so dinp may
   * alias inp's gradient stream but never dout.
   */
  backward(encoder: GPUCommandEncoder, args: LinearBackwardArgs): void {
    const { dinp, dweight, dbias, dout, inp, weight, accumulateInput } = args;
    this.weightMatmul.record(encoder, { a: dout, b: inp, out: dweight });
    if (this.biasBackward) {
      if (!dbias) throw new Error(`${this.label}: built with a bias but no dbias was given`);
      this.biasBackward.backward(encoder, { dbias, dout });
    }
    if (dinp)
      (accumulateInput ? this.inputAccumulateMatmul : this.inputMatmul).record(encoder, { a: dout, b: weight, out: dinp });
  }
}

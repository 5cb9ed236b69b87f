// FLOPS over a whole accumulated step: two micro-batches' means summed (addMeansInto), loaded back as the step's mean
// (loadMeans), give the loss and gradient of FLOPS over the two batches stacked, against the float64 reference.
import { FlopsLoss } from '../../../../src/kernels/flops-loss.ts';
import { flopsLossBackward, flopsLossForward } from '../../../../src/kernels/reference/flops-loss.ts';
import type { KernelCase, KernelFamily } from './kernel-case.ts';

function flopsStepCase(N: number, V: number): KernelCase {
  return {
    name: `N=${N} V=${V}: loss and gradient of the stacked micro-batches`,
    make: () => {
      const lambda = 0.7;
      const positive = (seed: number) =>
        Array.from({ length: N * V }, (_, i) => ((i * 7919 + seed * 104729) % 13 < 5 ? 0 : ((i * 31 + seed) % 17) / 5));
      return {
        name: `flops step N${N} V${V}`,
        tensors: {
          first: { shape: [N, V], data: positive(1) },
          second: { shape: [N, V], data: positive(2) },
          sums: { shape: [V] },
          losses: { shape: [3], data: [0, 0, 0] },
          dsecond: { shape: [N, V], data: new Array(N * V).fill(0) },
        },
        build: (ctx, t) => {
          const flops = new FlopsLoss(ctx, N, V, 1);
          flops.setLambda(lambda);
          return {
            record: (enc) => {
              ctx.clear(enc, t.sums);
              flops.forward(enc, { vectors: t.first, losses: t.losses });
              flops.addMeansInto(enc, t.sums);
              flops.forward(enc, { vectors: t.second, losses: t.losses });
              flops.addMeansInto(enc, t.sums);
              flops.loadMeans(enc, t.sums, 2);
              flops.reduce(enc, t.losses);
              flops.backward(enc, { vectors: t.second, dvectors: t.dsecond });
            },
          };
        },
        reference: (h) => {
          const stacked = new Float64Array([...h.first, ...h.second]);
          // the step's gradient for the second batch's rows: twice the stacked one (the step averages its 2 micro-batches)
          const dstacked = flopsLossBackward(stacked, 2 * N, V, lambda);
          return { losses: [0, flopsLossForward(stacked, 2 * N, V), 0], dsecond: dstacked.slice(N * V).map((g) => 2 * g) };
        },
        checks: { losses: { tol: { rtol: 1e-5, atol: 1e-6 } }, dsecond: { tol: { rtol: 1e-5, atol: 1e-7 } } },
      };
    },
  };
}

export const flopsStep: KernelFamily = {
  family: 'flops-step',
  groups: [{ describe: 'FLOPS over an accumulated step', cases: [flopsStepCase(3, 7), flopsStepCase(5, 1000)] }],
};

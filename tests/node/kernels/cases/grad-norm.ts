// The global gradient norm and the update's gradient scale (averaging micro-batches, clipping by global norm) against
// the float64 reference, on odd sizes; and SGD against its reference, with a decay-exempt parameter.
import type { Tensor } from '../../../../src/gpu/tensor.ts';
import { GradientScale } from '../../../../src/kernels/grad-norm.ts';
import { gradientScale } from '../../../../src/kernels/reference/grad-norm.ts';
import { sgdStep } from '../../../../src/kernels/reference/sgd.ts';
import { Sgd } from '../../../../src/kernels/sgd.ts';
import type { KernelCase, KernelFamily } from './kernel-case.ts';

function gradientScaleCase(sizes: number[], maxNorm: number, microBatches: number): KernelCase {
  return {
    name: `sizes ${JSON.stringify(sizes)}, max norm ${maxNorm}, ${microBatches} micro-batches`,
    make: () => {
      const names = sizes.map((_, i) => `g${i}`);
      return {
        name: `gradient scale ${sizes.join('+')}`,
        tensors: Object.fromEntries(sizes.map((n, i) => [names[i], { shape: [n] }])),
        build: (ctx, t) => {
          const scale = new GradientScale(
            ctx,
            names.map((name) => t[name]),
          );
          return { record: (enc) => scale.record(enc, { maxNorm, microBatches }), tensors: { scale: scale.scale } };
        },
        reference: (h) => {
          const { scale, norm } = gradientScale(
            names.map((name) => h[name]),
            maxNorm,
            microBatches,
          );
          return { scale: [scale, norm] };
        },
        checks: { scale: { tol: { rtol: 1e-5, atol: 0 } } },
      };
    },
  };
}

function sgdCase(n: number, decays: boolean): KernelCase {
  return {
    name: `matches the reference over 3 steps for n=${n} (decays: ${decays}), with a GPU gradient scale`,
    make: () => {
      const lr = 0.05;
      const weightDecay = 0.1;
      return {
        name: `sgd n=${n}`,
        tensors: { param: { shape: [n] }, dparam: { shape: [n] }, scale: { shape: [2], data: [0.25, 0] } },
        stateful: true,
        build: (ctx, t) => {
          const optimizer = new Sgd(ctx, [{ param: t.param, dparam: t.dparam, decays }], t.scale as Tensor<'f32'>);
          return {
            run: async () => {
              for (let s = 1; s <= 3; s++) await ctx.run('sgd', (enc) => optimizer.record(enc, { lr: lr * s, weightDecay }, 2));
            },
          };
        },
        reference: (h) => {
          const param = Float64Array.from(h.param);
          for (let s = 1; s <= 3; s++) sgdStep(param, h.dparam, lr * s, decays ? weightDecay : 0, 0.25 * 2);
          return { param };
        },
        checks: { param: { tol: { rtol: 1e-5, atol: 1e-6 } } },
      };
    },
  };
}

export const gradNorm: KernelFamily = {
  family: 'grad-norm',
  groups: [
    {
      describe: 'gradient scale',
      cases: [
        // sizes of the gradients, max norm, micro-batches
        gradientScaleCase([1], 0, 1),
        gradientScaleCase([7, 300, 1], 1, 1), // the norm of N(0, 1) values of 308 elements is about 17.5: clipped
        gradientScaleCase([70001, 33], 1000, 3), // norm about 265 / 3: not clipped, averaged
        gradientScaleCase([257, 513], 0.5, 2),
      ],
    },
    { describe: 'SGD', cases: [sgdCase(1, true), sgdCase(1000, true), sgdCase(70001, false)] },
  ],
};

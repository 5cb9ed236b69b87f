// AdamW against the float64 reference over several steps, with weight decay and a gradient scale, and a parameter
// exempt from the weight decay (a bias or LayerNorm parameter).
import type { Tensor } from '../../../../src/gpu/tensor.ts';
import { AdamW } from '../../../../src/kernels/adamw.ts';
import { adamwStep, type AdamWHyper } from '../../../../src/kernels/reference/adamw.ts';
import type { KernelCase, KernelFamily } from './kernel-case.ts';

const STEPS = 5;

function adamwCase(n: number, decays: boolean): KernelCase {
  return {
    name: `matches the reference over 5 steps for n=${n} (decays: ${decays})`,
    make: () => {
      const hyper: AdamWHyper = { lr: 1e-2, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.1 };
      const steps = Array.from({ length: STEPS }, (_, i) => `dparam${i + 1}`);
      return {
        name: `adamw n=${n}`,
        seed: n,
        // one gradient per step, copied into the optimiser's gradient buffer before each step
        tensors: Object.fromEntries([
          ['param', { shape: [n] }],
          ['dparam', { shape: [n] }],
          ...steps.map((name) => [name, { shape: [n] }]),
        ]),
        stateful: true, // the moments and the step count carry over: the repeat builds a fresh optimiser
        build: (ctx, t) => {
          const optimizer = new AdamW(ctx, [{ param: t.param, dparam: t.dparam, decays }]);
          const copy = (enc: GPUCommandEncoder, from: Tensor) =>
            ctx.copy(enc, from.buffer, 0, t.dparam.buffer, 0, from.byteLength);
          return {
            // one submit per step: each step writes its own uniform (learning rate and bias corrections)
            run: async () => {
              for (let s = 1; s <= STEPS; s++) {
                await ctx.run('adamw', (enc) => {
                  copy(enc, t[`dparam${s}`]);
                  optimizer.record(enc, { ...hyper, lr: hyper.lr * s }, 0.5);
                });
              }
            },
          };
        },
        reference: (h) => {
          const param = Float64Array.from(h.param);
          const [m, v] = [new Float64Array(n), new Float64Array(n)];
          const exempt = decays ? hyper : { ...hyper, weightDecay: 0 };
          for (let s = 1; s <= STEPS; s++) adamwStep(param, h[`dparam${s}`], m, v, s, { ...exempt, lr: hyper.lr * s }, 0.5);
          return { param };
        },
        checks: { param: { tol: { rtol: 1e-4, atol: 1e-5 } } },
      };
    },
  };
}

export const adamw: KernelFamily = {
  family: 'adamw',
  groups: [
    {
      describe: 'AdamW',
      cases: [adamwCase(1, true), adamwCase(7, true), adamwCase(1000, true), adamwCase(70001, true), adamwCase(33, false)],
    },
  ],
};

// AdamW on the GPU against the float64 reference over several steps, with weight decay and a gradient scale, and a
// parameter exempt from the weight decay (a bias or LayerNorm parameter).
import { describe, it } from 'vitest';
import type { Tensor } from '../../../src/gpu/tensor.ts';
import { AdamW } from '../../../src/kernels/adamw.ts';
import { adamwStep, type AdamWHyper } from '../../../src/kernels/reference/adamw.ts';
import { expectKernel } from '../../helpers/expect-kernel.ts';
import { gpuContext } from '../../helpers/gpu.ts';

const STEPS = 5;

describe('AdamW', () => {
  it.each([
    [1, true],
    [7, true],
    [1000, true],
    [70001, true],
    [33, false],
  ])('matches the reference over 5 steps for n=%i (decays: %s)', async (n, decays) => {
    const ctx = await gpuContext();
    const hyper: AdamWHyper = { lr: 1e-2, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.1 };
    const steps = Array.from({ length: STEPS }, (_, i) => `dparam${i + 1}`);
    await expectKernel(ctx, {
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
          enc.copyBufferToBuffer(from.buffer, 0, t.dparam.buffer, 0, from.byteLength);
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
    });
  });
});

// AdamW on the GPU against the float64 reference over several steps, with weight decay and a gradient scale.
import { describe, it } from 'vitest';
import { AdamW } from '../../src/kernels/adamw.ts';
import { adamwStep, type AdamWHyper } from '../../src/kernels/reference/adamw.ts';
import { Random } from '../../src/util/random.ts';
import { expectClose } from '../helpers/compare.ts';
import { gpuContext } from '../helpers/gpu.ts';

describe('AdamW', () => {
  it.each([[1], [7], [1000], [70001]])('matches the reference over 5 steps for n=%i', async (n) => {
    const ctx = await gpuContext();
    const random = new Random(n);
    const hyper: AdamWHyper = { lr: 1e-2, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.1 };
    const param = random.normals(n).map(Math.fround);
    const p = ctx.tensor('p', [n], 'f32', param);
    const g = ctx.tensor('g', [n], 'f32');
    const optimizer = new AdamW(ctx, [{ param: p, dparam: g }]);
    const [m, v] = [new Float64Array(n), new Float64Array(n)];
    for (let t = 1; t <= 5; t++) {
      const grad = random.normals(n).map(Math.fround);
      ctx.upload(g, grad);
      await ctx.run('adamw', (enc) => optimizer.record(enc, { ...hyper, lr: hyper.lr * t }, 0.5));
      adamwStep(param, grad, m, v, t, { ...hyper, lr: hyper.lr * t }, 0.5);
    }
    expectClose('param', await ctx.read(p), param, { rtol: 1e-4, atol: 1e-5 });
  });
});

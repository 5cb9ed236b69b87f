// LayerNorm kernels (with and without bias) against the float64 reference of src/kernels/reference/layernorm.ts.
import { describe, it } from 'vitest';
import { LayerNorm } from '../../src/kernels/layernorm.ts';
import { layerNormBackward, layerNormForward } from '../../src/kernels/reference/layernorm.ts';
import { Random } from '../../src/util/random.ts';
import { expectClose } from '../helpers/compare.ts';
import { gpuContext } from '../helpers/gpu.ts';

const f32 = (a: Float64Array) => a.map(Math.fround);

describe('LayerNorm kernels', () => {
  // N = 1, 7, 33 rows; C below, at and above the row workgroup, not a multiple of 4; 70 rows span 3 chunks of 32;
  // 70000 rows (one workgroup each) pass the 65535 workgroups of one dimension and fold into y. Workgroup 0 = the
  // adapter's default (4 lanes on SwiftShader); 64 is the GPU default.
  it.each([
    [1, 5, true, false, 64],
    [7, 64, false, false, 64],
    [33, 130, true, true, 0],
    [33, 130, false, false, 64],
    [70, 9, false, true, 0],
    [70000, 16, true, false, 0],
  ])('forward and backward match the reference for N=%i C=%i bias=%s accumulate=%s workgroup=%i', async (N, C, hasBias, accumulate, workgroup) => {
    const ctx = await gpuContext();
    const random = new Random(N * 1000 + C);
    const eps = 1e-5;
    // An offset row mean (3) checks that the variance is taken around the mean, not around 0.
    const inp = f32(random.normals(N * C).map((x) => 3 + 2 * x));
    const weight = f32(random.normals(C).map((x) => 1 + 0.5 * x));
    const bias = hasBias ? f32(random.normals(C)) : null;
    const dout = f32(random.normals(N * C));
    const dinp0 = f32(random.normals(N * C));
    const dweight0 = f32(random.normals(C));
    const dbias0 = f32(random.normals(C));

    const out = new Float64Array(N * C);
    const mean = new Float64Array(N);
    const rstd = new Float64Array(N);
    layerNormForward(out, mean, rstd, inp, weight, bias, N, C, eps);
    const dinp = accumulate ? dinp0.slice() : new Float64Array(N * C);
    const dweight = dweight0.slice();
    const dbias = dbias0.slice();
    layerNormBackward(dinp, dweight, hasBias ? dbias : null, dout, inp, weight, mean, rstd, N, C);

    const norm = new LayerNorm(ctx, { N, C }, { bias: hasBias, eps, accumulate, workgroup: workgroup || undefined });
    const t = {
      inp: ctx.tensor('inp', [N, C], 'f32', inp),
      weight: ctx.tensor('weight', [C], 'f32', weight),
      bias: bias ? ctx.tensor('bias', [C], 'f32', bias) : null,
      out: ctx.tensor('out', [N, C], 'f32'),
      mean: ctx.tensor('mean', [N], 'f32'),
      rstd: ctx.tensor('rstd', [N], 'f32'),
      dout: ctx.tensor('dout', [N, C], 'f32', dout),
      // Gradients start non-zero: dinp must be overwritten (or added to with accumulate), dweight/dbias added to.
      dinp: ctx.tensor('dinp', [N, C], 'f32', dinp0),
      dweight: ctx.tensor('dweight', [C], 'f32', dweight0),
      dbias: hasBias ? ctx.tensor('dbias', [C], 'f32', dbias0) : null,
    };
    await ctx.run('layernorm', (enc) => {
      norm.forward(enc, { out: t.out, mean: t.mean, rstd: t.rstd, inp: t.inp, weight: t.weight, bias: t.bias });
      norm.backward(enc, { dinp: t.dinp, dweight: t.dweight, dbias: t.dbias, dout: t.dout, inp: t.inp, weight: t.weight, mean: t.mean, rstd: t.rstd });
    });
    // fp32 statistics over C <= 130 values: ~1e-6 relative; the gradients sum N·C products.
    expectClose('out', await ctx.read(t.out), out, { rtol: 1e-5, atol: 1e-5 });
    expectClose('mean', await ctx.read(t.mean), mean, { rtol: 1e-5, atol: 1e-6 });
    expectClose('rstd', await ctx.read(t.rstd), rstd, { rtol: 1e-5, atol: 1e-6 });
    expectClose('dinp', await ctx.read(t.dinp), dinp, { rtol: 1e-4, atol: 1e-5 });
    // dweight/dbias are f32 sums over N rows of O(1) terms: the rounding grows like sqrt(N) (N = 70000: ~4e-4 seen).
    const sums = { rtol: 1e-4, atol: 1e-4 * Math.max(1, Math.sqrt(N) / 8) };
    expectClose('dweight', await ctx.read(t.dweight), dweight, sums);
    if (t.dbias) expectClose('dbias', await ctx.read(t.dbias), dbias, sums);
  });

});

// LayerNorm kernels (with and without bias) against the float64 reference of src/kernels/reference/layernorm.ts.
import { LayerNorm } from '../../../../src/kernels/layernorm.ts';
import { layerNormBackward, layerNormForward } from '../../../../src/kernels/reference/layernorm.ts';
import { Random } from '../../../../src/util/random.ts';
import type { KernelCase, KernelFamily } from './kernel-case.ts';

function layerNormCase(N: number, C: number, hasBias: boolean, accumulate: boolean, workgroup: number): KernelCase {
  return {
    name: `forward and backward match the reference for N=${N} C=${C} bias=${hasBias} accumulate=${accumulate} workgroup=${workgroup}`,
    make: () => {
      const random = new Random(N * 1000 + C);
      const eps = 1e-5;
      // dweight/dbias are f32 sums over N rows of O(1) terms: the rounding grows like sqrt(N) (N = 70000: ~4e-4 seen).
      const sums = { rtol: 1e-4, atol: 1e-4 * Math.max(1, Math.sqrt(N) / 8) };
      return {
        name: `layernorm N=${N} C=${C}`,
        tensors: {
          // An offset row mean (3) checks that the variance is taken around the mean, not around 0.
          inp: { shape: [N, C], data: random.normals(N * C).map((x) => 3 + 2 * x) },
          weight: { shape: [C], data: random.normals(C).map((x) => 1 + 0.5 * x) },
          ...(hasBias ? { bias: { shape: [C] }, dbias: { shape: [C] } } : {}),
          out: { shape: [N, C] },
          mean: { shape: [N] },
          rstd: { shape: [N] },
          dout: { shape: [N, C] },
          // Gradients start non-zero: dinp must be overwritten (or added to with accumulate), dweight/dbias added to.
          dinp: { shape: [N, C] },
          dweight: { shape: [C] },
        },
        build: (ctx, t) => {
          const norm = new LayerNorm(ctx, { N, C }, { bias: hasBias, eps, accumulate, workgroup: workgroup || undefined });
          const bias = t.bias ?? null;
          return {
            record: (enc) => {
              norm.forward(enc, { out: t.out, mean: t.mean, rstd: t.rstd, inp: t.inp, weight: t.weight, bias });
              norm.backward(enc, {
                dinp: t.dinp,
                dweight: t.dweight,
                dbias: t.dbias ?? null,
                dout: t.dout,
                inp: t.inp,
                weight: t.weight,
                mean: t.mean,
                rstd: t.rstd,
              });
            },
          };
        },
        reference: (h) => {
          const r = { out: new Float64Array(N * C), mean: new Float64Array(N), rstd: new Float64Array(N) };
          layerNormForward(r.out, r.mean, r.rstd, h.inp, h.weight, h.bias ?? null, N, C, eps);
          const g = { dinp: new Float64Array(N * C), dweight: new Float64Array(C), dbias: new Float64Array(C) };
          layerNormBackward(g.dinp, g.dweight, hasBias ? g.dbias : null, h.dout, h.inp, h.weight, r.mean, r.rstd, N, C);
          return { ...r, ...g };
        },
        // fp32 statistics over C <= 130 values: ~1e-6 relative; the gradients sum N·C products.
        checks: {
          out: { tol: { rtol: 1e-5, atol: 1e-5 } },
          mean: { tol: { rtol: 1e-5, atol: 1e-6 } },
          rstd: { tol: { rtol: 1e-5, atol: 1e-6 } },
          dinp: { tol: { rtol: 1e-4, atol: 1e-5 }, accumulates: accumulate },
          dweight: { tol: sums, accumulates: true },
          ...(hasBias ? { dbias: { tol: sums, accumulates: true } } : {}),
        },
      };
    },
  };
}

export const layerKernelsLayernorm: KernelFamily = {
  family: 'layer-kernels-layernorm',
  groups: [
    {
      describe: 'LayerNorm kernels',
      // N = 1, 7, 33 rows; C below, at and above the row workgroup, not a multiple of 4; 70 rows span 3 chunks of 32;
      // 70000 rows (one workgroup each) pass the 65535 workgroups of one dimension and fold into y. Workgroup 0 = the
      // adapter's default (4 lanes on SwiftShader); 64 is the GPU default.
      cases: [
        layerNormCase(1, 5, true, false, 64),
        layerNormCase(7, 64, false, false, 64),
        layerNormCase(33, 130, true, true, 0),
        layerNormCase(33, 130, false, false, 64),
        layerNormCase(70, 9, false, true, 0),
        layerNormCase(70000, 16, true, false, 0),
      ],
    },
  ],
};

// Element-wise layer kernels (erf, exact GELU, GeGLU, residual add, bias add) against src/kernels/reference/activations.ts.
import { describe, expect, it } from 'vitest';
import { Add, BiasAdd, Erf, FirstTokenGather, Geglu, Gelu, MaskedMean, Tanh } from '../../../src/kernels/activations.ts';
import {
  addForward,
  biasAddBackward,
  biasAddForward,
  erf,
  gegluBackward,
  gegluForward,
  gelu,
  geluBackward,
  geluForward,
  geluTanh,
  geluTanhDerivative,
  firstTokenGather,
  maskedMean,
  tanhForward,
} from '../../../src/kernels/reference/activations.ts';
import { Random } from '../../../src/util/random.ts';
import { EXACT } from '../../helpers/allclose.ts';
import { expectKernel } from '../../helpers/expect-kernel.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { withLoweredLimits } from '../../helpers/lowered-limits.ts';

/** n points evenly spaced over [lo, hi]. */
const grid = (n: number, lo: number, hi: number) => Float64Array.from({ length: n }, (_, i) => lo + ((hi - lo) * i) / (n - 1));

describe('activation kernels', () => {
  it('erf is within 1e-6 of the float64 erf on [-7, 7]', async () => {
    const n = 14001;
    await expectKernel(await gpuContext(), {
      name: 'erf',
      tensors: { inp: { shape: [n], data: grid(n, -7, 7) }, out: { shape: [n] } },
      build: (ctx, t) => {
        const kernel = new Erf(ctx, n);
        return { record: (enc) => kernel.forward(enc, { out: t.out, inp: t.inp }) };
      },
      reference: (h) => ({ out: h.inp.map(erf) }),
      checks: { out: { tol: { rtol: 0, atol: 1e-6 } } },
    });
  });

  // 70001 elements need more than 256 workgroups of 256 and exercise the tail; x spans both tails of Φ. gelu_new
  // (ALBERT's tanh form) over both tails too (|x| up to ~12), at odd sizes.
  describe.each([
    [false, 1],
    [false, 7],
    [false, 70001],
    [true, 1],
    [true, 9],
    [true, 4099],
  ])('GELU (tanh approximation %s), n=%i', (approximate, n) => {
    it.each([[false], [true]])('forward and backward (accumulate %s) match the reference', async (accumulate) => {
      const inp = approximate ? new Random(n + 5).normals(n, 4) : new Random(n).normals(n, 3);
      // deep lower tail: gelu = x·Φ(x) ≈ -2.6e-10 must keep its relative accuracy
      if (n === 1) inp[0] = approximate ? -7.5 : -6.5;
      await expectKernel(await gpuContext(), {
        name: `gelu${approximate ? '_new' : ''} n=${n} accumulate=${accumulate}`,
        tensors: { inp: { shape: [n], data: inp }, out: { shape: [n] }, dout: { shape: [n] }, dinp: { shape: [n] } },
        build: (ctx, t) => {
          const kernel = new Gelu(ctx, n, { accumulate, approximate });
          return {
            record: (enc) => {
              kernel.forward(enc, { out: t.out, inp: t.inp });
              kernel.backward(enc, { dinp: t.dinp, dout: t.dout, inp: t.inp });
            },
          };
        },
        reference: (h) => {
          const out = new Float64Array(n);
          geluForward(out, h.inp, approximate);
          const dinp = new Float64Array(n);
          geluBackward(dinp, h.dout, h.inp, approximate);
          return { out, dinp };
        },
        tolerance: approximate ? { rtol: 2e-5, atol: 1e-6 } : { rtol: 2e-6, atol: 1e-6 },
        checks: { out: {}, dinp: { accumulates: accumulate } },
      });
    });
  });

  it('gelu_new: the reference derivative equals central differences, and the form differs from the exact GELU', () => {
    for (const x of [-6, -2.5, -0.7, 0, 0.3, 1.9, 5]) {
      const h = 1e-6;
      expect(geluTanhDerivative(x)).toBeCloseTo((geluTanh(x + h) - geluTanh(x - h)) / (2 * h), 8);
    }
    // the two GELUs agree to ~1e-3 but not exactly: gelu_new(1) = 0.8411920, gelu(1) = 0.8413447
    expect(geluTanh(1)).toBeCloseTo(0.841192, 6);
    expect(Math.abs(geluTanh(1) - gelu(1))).toBeGreaterThan(1e-4);
  });

  it('GELU keeps relative accuracy in the lower tail', async () => {
    await expectKernel(await gpuContext(), {
      name: 'gelu tail',
      tensors: { inp: { shape: [41], data: grid(41, -9, -3) }, out: { shape: [41] } },
      build: (ctx, t) => {
        const kernel = new Gelu(ctx, 41);
        return { record: (enc) => kernel.forward(enc, { out: t.out, inp: t.inp }) };
      },
      reference: (h) => ({ out: h.inp.map(gelu) }),
      // WGSL bounds f32 exp(u) to 3 + 2·|u| ULP; in the tail, u = -x²/2 + c reaches -41 at x = -9, and its own rounding
      // adds |u| ULP of relative error: (3 + 3·41) · 2^-23 = 1.5e-5 at most, on a device that uses the whole bound
      checks: { out: { tol: { rtol: 1.6e-5, atol: 0 } } },
    });
  });

  // GeGLU gates with the SECOND half: out = gelu(first half) · second half, as transformers' ModernBertMLP.
  describe.each([
    [1, 1],
    [7, 5],
    [33, 70],
  ])('GeGLU, N=%i I=%i', (N, I) => {
    it.each([[false], [true]])('forward and backward (accumulate %s) match the reference', async (accumulate) => {
      await expectKernel(await gpuContext(), {
        name: `geglu N=${N} I=${I} accumulate=${accumulate}`,
        tensors: {
          inp: { shape: [N, 2 * I], data: new Random(N * 100 + I).normals(N * 2 * I, 2) },
          out: { shape: [N, I] },
          dout: { shape: [N, I] },
          dinp: { shape: [N, 2 * I] },
        },
        build: (ctx, t) => {
          const kernel = new Geglu(ctx, N, I, { accumulate });
          return {
            record: (enc) => {
              kernel.forward(enc, { out: t.out, inp: t.inp });
              kernel.backward(enc, { dinp: t.dinp, dout: t.dout, inp: t.inp });
            },
          };
        },
        reference: (h) => {
          const out = new Float64Array(N * I);
          gegluForward(out, h.inp, N, I);
          const dinp = new Float64Array(N * 2 * I);
          gegluBackward(dinp, h.dout, h.inp, N, I);
          return { out, dinp };
        },
        tolerance: { rtol: 2e-6, atol: 2e-6 },
        checks: { out: {}, dinp: { accumulates: accumulate } },
      });
    });
  });

  // 1031 elements in one row of workgroups; then the same count with the device's per-dimension limit reported as 3
  // workgroups, so that the grid folds into y (3 x 2 groups for 5, one spare; a wider grid is refused at dispatch)
  // as 65535 · 256 + 7 elements fold on a real device: the same grid1d and the same unfolding in the shader, at a size
  // SwiftShader runs in milliseconds.
  it.each([
    [1031, 'one row of workgroups'],
    [1031, 'folded past a limit of 3 workgroups per dimension'],
  ])('residual add writes a + b and accumulates out += a, exactly, n=%i, %s', async (n, how) => {
    const folded = how.startsWith('folded');
    const ctx = await gpuContext();
    await expectKernel(folded ? withLoweredLimits(ctx, { maxComputeWorkgroupsPerDimension: 3 }) : ctx, {
      name: `add n=${n}`,
      tensors: {
        // small integers add exactly in f32
        a: { shape: [n], data: folded ? Float32Array.from({ length: n }, (_, i) => i % 1021) : undefined },
        b: { shape: [n], data: folded ? Float32Array.from({ length: n }, (_, i) => (i % 7) * 4096) : undefined },
        sum: { shape: [n] },
        out: { shape: [n] },
      },
      build: (ctx, t) => {
        const add = new Add(ctx, n);
        return {
          record: (enc) => {
            add.forward(enc, { out: t.sum, a: t.a, b: t.b });
            add.accumulate(enc, { out: t.out, a: t.a });
          },
        };
      },
      reference: (h) => {
        const sum = new Float64Array(n);
        addForward(sum, h.a, h.b);
        // the GPU rounds each sum to f32: the exact expectation is the rounded float64 sum
        return { sum: sum.map(Math.fround), out: h.out.map((x, i) => Math.fround(x + h.a[i])) };
      },
      checks: { sum: { tol: EXACT }, out: { tol: EXACT } },
    });
  });

  // N = 70 spans 3 chunks of 32 rows (the last one partial); C = 300 spans two workgroups of columns.
  it.each([
    [1, 3],
    [70, 300],
  ])('bias add and its gradient (column sums) for N=%i C=%i', async (N, C) => {
    await expectKernel(await gpuContext(), {
      name: `bias add N=${N} C=${C}`,
      tensors: { x: { shape: [N, C] }, bias: { shape: [C] }, dout: { shape: [N, C] }, dbias: { shape: [C] } },
      build: (ctx, t) => {
        const kernel = new BiasAdd(ctx, N, C);
        return {
          record: (enc) => {
            kernel.forward(enc, { x: t.x, bias: t.bias });
            kernel.backward(enc, { dbias: t.dbias, dout: t.dout });
          },
        };
      },
      reference: (h) => {
        const x = Float64Array.from(h.x);
        biasAddForward(x, h.bias, N, C);
        const dbias = new Float64Array(C);
        biasAddBackward(dbias, h.dout, N, C);
        return { x, dbias };
      },
      checks: { x: { tol: { rtol: 1e-7, atol: 1e-7 } }, dbias: { tol: { rtol: 1e-5, atol: 1e-5 }, accumulates: true } },
    });
  });

  // Mean over each sequence's real tokens: one token, padding at the end and a single real token, C past a workgroup.
  describe.each([
    [1, 1, 1, [1]],
    [3, 7, 5, [7, 4, 1]],
    [2, 9, 300, [9, 2]],
  ])('masked mean, B=%i T=%i C=%i', (B, T, C, lengths) => {
    it('matches the float64 mean over real tokens', async () => {
      const mask = Float64Array.from({ length: B * T }, (_, i) => (i % T < lengths[Math.floor(i / T)] ? 1 : 0));
      await expectKernel(await gpuContext(), {
        name: `masked_mean B=${B} T=${T} C=${C}`,
        tensors: {
          inp: { shape: [B, T, C], data: new Random(B * T + C).normals(B * T * C, 1) },
          mask: { shape: [B, T], data: mask },
          out: { shape: [B, C] },
        },
        build: (ctx, t) => {
          const kernel = new MaskedMean(ctx, B, T, C);
          return { record: (enc) => kernel.forward(enc, { out: t.out, inp: t.inp, mask: t.mask }) };
        },
        reference: (h) => {
          const out = new Float64Array(B * C);
          maskedMean(out, h.inp, h.mask, B, T, C);
          return { out };
        },
        checks: { out: { tol: { rtol: 1e-6, atol: 1e-6 } } },
      });
    });
  });

  it('rejects operands of the wrong shape before recording', async () => {
    const ctx = await gpuContext();
    const kernel = new Geglu(ctx, 4, 3);
    const wrong = ctx.tensor('wrong', [4, 3], 'f32');
    const out = ctx.tensor('out', [4, 3], 'f32');
    const encoder = ctx.encoder('shape check');
    expect(() => kernel.forward(encoder, { out, inp: wrong })).toThrow(/inp must be \[4x6\]/);
  });
  // tanh (the pooler's): n = 1 at a tiny x (the series branch, relative accuracy near 0), 7, and 70001 (past 256
  // workgroups) over both saturated ends (|x| up to ~40: no overflow, no NaN) and the series/exp boundary 0.25.
  describe.each([[1], [7], [70001]])('tanh, n=%i', (n) => {
    it('matches the float64 tanh to 2e-6 relative', async () => {
      const inp = n === 70001 ? grid(n, -40, 40) : new Random(n + 11).normals(n, 1);
      if (n === 1) inp[0] = -3e-4;
      if (n === 7) inp.set([0.25, -0.2499999, 0.2500001, 1e-30], 0);
      await expectKernel(await gpuContext(), {
        name: `tanh n=${n}`,
        tensors: { inp: { shape: [n], data: inp }, out: { shape: [n] } },
        build: (ctx, t) => {
          const kernel = new Tanh(ctx, n);
          return { record: (enc) => kernel.forward(enc, { out: t.out, inp: t.inp }) };
        },
        reference: (h) => {
          const out = new Float64Array(n);
          tanhForward(out, h.inp);
          return { out };
        },
        checks: { out: { tol: { rtol: 2e-6, atol: 0 } } },
      });
    });
  });

  // The [CLS] row of each sequence: odd B, T, C, a single token, and C past one workgroup.
  describe.each([
    [1, 1, 1],
    [3, 7, 5],
    [2, 5, 300],
  ])('first-token gather, B=%i T=%i C=%i', (B, T, C) => {
    it("copies each sequence's first row exactly", async () => {
      await expectKernel(await gpuContext(), {
        name: `first_token_gather B=${B} T=${T} C=${C}`,
        tensors: { inp: { shape: [B, T, C], data: new Random(B * T * C).normals(B * T * C, 1) }, out: { shape: [B, C] } },
        build: (ctx, t) => {
          const kernel = new FirstTokenGather(ctx, B, T, C);
          return { record: (enc) => kernel.forward(enc, { out: t.out, inp: t.inp }) };
        },
        reference: (h) => {
          const out = new Float64Array(B * C);
          firstTokenGather(out, h.inp, B, T, C);
          return { out };
        },
        checks: { out: { tol: EXACT } },
      });
    });
  });
});

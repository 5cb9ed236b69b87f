// Element-wise layer kernels (erf, exact GELU, GeGLU, residual add, bias add) against src/kernels/reference/activations.ts.
import { describe, expect, it } from 'vitest';
import { Add, BiasAdd, Erf, Geglu, Gelu } from '../../src/kernels/activations.ts';
import { erf, gegluBackward, gegluForward, gelu, geluBackward, geluForward } from '../../src/kernels/reference/activations.ts';
import { Random } from '../../src/util/random.ts';
import { expectClose } from '../helpers/compare.ts';
import { gpuContext } from '../helpers/gpu.ts';

const f32 = (a: Float64Array) => a.map(Math.fround);
/** n points evenly spaced over [lo, hi], as f32. */
const grid = (n: number, lo: number, hi: number) => f32(Float64Array.from({ length: n }, (_, i) => lo + ((hi - lo) * i) / (n - 1)));

describe('activation kernels', () => {
  it('erf is within 1e-6 of the float64 erf on [-7, 7]', async () => {
    const ctx = await gpuContext();
    const x = grid(14001, -7, 7);
    const kernel = new Erf(ctx, x.length);
    const [inp, out] = [ctx.tensor('x', [x.length], 'f32', x), ctx.tensor('erf', [x.length], 'f32')];
    await ctx.run('erf', (enc) => kernel.forward(enc, { out, inp }));
    expectClose('erf', await ctx.read(out), x.map(erf), { rtol: 0, atol: 1e-6 });
  });

  // 70001 elements need more than 256 workgroups of 256 and exercise the tail; x spans both tails of Φ.
  it.each([[1], [7], [70001]])('GELU forward and backward match the reference for n=%i', async (n) => {
    const ctx = await gpuContext();
    const random = new Random(n);
    const inp = f32(random.normals(n, 3));
    if (n === 1) inp[0] = -6.5; // deep lower tail: gelu = x·Φ(x) ≈ -2.6e-10 must keep its relative accuracy
    const dout = f32(random.normals(n));
    const dinp0 = f32(random.normals(n));
    for (const accumulate of [false, true]) {
      const out = new Float64Array(n);
      geluForward(out, inp);
      const dinp = accumulate ? dinp0.slice() : new Float64Array(n);
      geluBackward(dinp, dout, inp);
      const kernel = new Gelu(ctx, n, { accumulate });
      const t = {
        inp: ctx.tensor('inp', [n], 'f32', inp),
        out: ctx.tensor('out', [n], 'f32'),
        dout: ctx.tensor('dout', [n], 'f32', dout),
        dinp: ctx.tensor('dinp', [n], 'f32', dinp0),
      };
      await ctx.run('gelu', (enc) => {
        kernel.forward(enc, { out: t.out, inp: t.inp });
        kernel.backward(enc, { dinp: t.dinp, dout: t.dout, inp: t.inp });
      });
      expectClose('gelu', await ctx.read(t.out), out, { rtol: 2e-6, atol: 1e-6 });
      expectClose(`dinp (accumulate ${accumulate})`, await ctx.read(t.dinp), dinp, { rtol: 2e-6, atol: 1e-6 });
    }
  });

  it('GELU keeps relative accuracy in the lower tail', async () => {
    const ctx = await gpuContext();
    const x = grid(41, -9, -3);
    const kernel = new Gelu(ctx, x.length);
    const [inp, out] = [ctx.tensor('x', [x.length], 'f32', x), ctx.tensor('gelu', [x.length], 'f32')];
    await ctx.run('gelu tail', (enc) => kernel.forward(enc, { out, inp }));
    expectClose('gelu tail', await ctx.read(out), x.map(gelu), { rtol: 1e-5, atol: 0 });
  });

  // GeGLU gates with the SECOND half: out = gelu(first half) · second half, as transformers' ModernBertMLP.
  it.each([
    [1, 1],
    [7, 5],
    [33, 70],
  ])('GeGLU forward and backward match the reference for N=%i I=%i', async (N, I) => {
    const ctx = await gpuContext();
    const random = new Random(N * 100 + I);
    const inp = f32(random.normals(N * 2 * I, 2));
    const dout = f32(random.normals(N * I));
    const dinp0 = f32(random.normals(N * 2 * I));
    for (const accumulate of [false, true]) {
      const out = new Float64Array(N * I);
      gegluForward(out, inp, N, I);
      const dinp = accumulate ? dinp0.slice() : new Float64Array(N * 2 * I);
      gegluBackward(dinp, dout, inp, N, I);
      const kernel = new Geglu(ctx, N, I, { accumulate });
      const t = {
        inp: ctx.tensor('inp', [N, 2 * I], 'f32', inp),
        out: ctx.tensor('out', [N, I], 'f32'),
        dout: ctx.tensor('dout', [N, I], 'f32', dout),
        dinp: ctx.tensor('dinp', [N, 2 * I], 'f32', dinp0),
      };
      await ctx.run('geglu', (enc) => {
        kernel.forward(enc, { out: t.out, inp: t.inp });
        kernel.backward(enc, { dinp: t.dinp, dout: t.dout, inp: t.inp });
      });
      expectClose('geglu', await ctx.read(t.out), out, { rtol: 2e-6, atol: 2e-6 });
      expectClose(`dinp (accumulate ${accumulate})`, await ctx.read(t.dinp), dinp, { rtol: 2e-6, atol: 2e-6 });
    }
  });

  it('residual add writes a + b and accumulates out += a', async () => {
    const ctx = await gpuContext();
    const n = 1031;
    const random = new Random(3);
    const [a, b] = [f32(random.normals(n)), f32(random.normals(n))];
    const add = new Add(ctx, n);
    const t = { a: ctx.tensor('a', [n], 'f32', a), b: ctx.tensor('b', [n], 'f32', b), out: ctx.tensor('out', [n], 'f32', b) };
    const sum = ctx.tensor('sum', [n], 'f32');
    await ctx.run('add', (enc) => {
      add.forward(enc, { out: sum, a: t.a, b: t.b });
      add.accumulate(enc, { out: t.out, a: t.a });
    });
    const expected = a.map((x, i) => Math.fround(x + b[i]));
    expectClose('a + b', await ctx.read(sum), expected, { rtol: 0, atol: 0 });
    expectClose('out += a', await ctx.read(t.out), expected, { rtol: 0, atol: 0 });
  });

  it('element kernels fold past 65535 workgroups into y (16.8M elements)', async () => {
    const ctx = await gpuContext();
    const n = 65535 * 256 + 7;
    const a = new Float32Array(n).map((_, i) => i % 1021);
    const b = new Float32Array(n).map((_, i) => (i % 7) * 4096);
    const add = new Add(ctx, n);
    const t = { a: ctx.tensor('a', [n], 'f32', a), b: ctx.tensor('b', [n], 'f32', b), out: ctx.tensor('out', [n], 'f32') };
    await ctx.run('add', (enc) => add.forward(enc, { out: t.out, a: t.a, b: t.b }));
    const out = await ctx.read(t.out);
    let wrong = -1;
    for (let i = 0; i < n && wrong < 0; i++) if (out[i] !== a[i] + b[i]) wrong = i;
    expect(wrong, 'first wrong element').toBe(-1);
  });

  // N = 70 spans 3 chunks of 32 rows (the last one partial); C = 300 spans two workgroups of columns.
  it.each([
    [1, 3],
    [70, 300],
  ])('bias add and its gradient (column sums) for N=%i C=%i', async (N, C) => {
    const ctx = await gpuContext();
    const random = new Random(N + C);
    const [x, bias, dout, dbias0] = [f32(random.normals(N * C)), f32(random.normals(C)), f32(random.normals(N * C)), f32(random.normals(C))];
    const kernel = new BiasAdd(ctx, N, C);
    const t = {
      x: ctx.tensor('x', [N, C], 'f32', x),
      bias: ctx.tensor('bias', [C], 'f32', bias),
      dout: ctx.tensor('dout', [N, C], 'f32', dout),
      dbias: ctx.tensor('dbias', [C], 'f32', dbias0),
    };
    await ctx.run('bias', (enc) => {
      kernel.forward(enc, { x: t.x, bias: t.bias });
      kernel.backward(enc, { dbias: t.dbias, dout: t.dout });
    });
    expectClose('x + bias', await ctx.read(t.x), x.map((v, i) => v + bias[i % C]), { rtol: 1e-7, atol: 1e-7 });
    const dbias = dbias0.slice();
    for (let n = 0; n < N; n++) for (let c = 0; c < C; c++) dbias[c] += dout[n * C + c];
    expectClose('dbias', await ctx.read(t.dbias), dbias, { rtol: 1e-5, atol: 1e-5 });
  });

  it('rejects operands of the wrong shape before recording', async () => {
    const ctx = await gpuContext();
    const kernel = new Geglu(ctx, 4, 3);
    const wrong = ctx.tensor('wrong', [4, 3], 'f32');
    const out = ctx.tensor('out', [4, 3], 'f32');
    const encoder = ctx.encoder('shape check');
    expect(() => kernel.forward(encoder, { out, inp: wrong })).toThrow(/inp must be \[4x6\]/);
  });
});

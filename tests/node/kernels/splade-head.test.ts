// Fused SPLADE head: float64 reference vs finite differences, and the GPU kernels vs the reference on odd shapes.
import { describe, expect, it } from 'vitest';
import { NO_TOKEN, SpladeHead } from '../../../src/kernels/splade-head.ts';
import { spladeHeadBackward, spladeHeadForward, spladeLogit } from '../../../src/kernels/reference/splade-head.ts';
import { Random } from '../../../src/util/random.ts';
import { describeKernelFamily } from '../../helpers/expect-kernel.ts';
import { checkGradients } from '../../helpers/gradcheck.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { describeOnCpu } from '../../helpers/portable-run.ts';
import { dyadicInputs, maskOf, spladeHead } from './cases/splade-head.ts';

describeOnCpu('splade head reference', () => {
  it('matches central finite differences for hidden, weight and bias (ties and kinks avoided)', () => {
    const dims = { B: 3, T: 5, d: 4, V: 7 };
    const random = new Random(11);
    const inputs = {
      hidden: random.normals(dims.B * dims.T * dims.d),
      weight: random.normals(dims.V * dims.d),
      bias: random.uniforms(dims.V, -1.5, 0.5),
      mask: maskOf(dims, [5, 3, 0]),
    };
    // the max is piecewise smooth: require every max logit away from 0 and from the runner-up
    let positive = 0;
    for (let b = 0; b < dims.B; b++) {
      for (let v = 0; v < dims.V; v++) {
        const logits = [];
        for (let t = 0; t < dims.T; t++) if (inputs.mask[b * dims.T + t]) logits.push(spladeLogit(inputs, dims, b, t, v));
        logits.sort((x, y) => y - x);
        if (logits.length === 0) continue;
        expect(Math.abs(logits[0]), `max logit of (${b}, ${v}) too close to 0`).toBeGreaterThan(1e-3);
        if (logits.length > 1) expect(logits[0] - logits[1], `near tie at (${b}, ${v})`).toBeGreaterThan(1e-3);
        if (logits[0] > 0) positive++;
      }
    }
    expect(positive, 'inputs exercise both branches').toBeGreaterThan(4);
    expect(positive).toBeLessThan(2 * dims.V);
    checkGradients({
      inputs,
      forward: (x) => spladeHeadForward(x, dims).pooled,
      backward: (x, dout) => {
        const g = spladeHeadBackward(x, spladeHeadForward(x, dims), dout, dims);
        return { hidden: g.dhidden, weight: g.dweight, bias: g.dbias };
      },
      wrt: ['hidden', 'weight', 'bias'],
      samples: 40,
    });
  });

  it('breaks ties toward the lowest token and marks all-nonpositive or all-masked columns with NO_TOKEN', () => {
    const dims = { B: 2, T: 3, d: 4, V: 2 };
    // tokens 1 and 2 are identical; v = 1 has a large negative bias
    const h = [0, 0, 0, 0, 1, 2, 0, 0, 1, 2, 0, 0];
    const out = spladeHeadForward(
      { hidden: [...h, ...h], weight: [1, 1, 0, 0, 1, 1, 0, 0], bias: [0, -10], mask: [1, 1, 1, 0, 0, 0] },
      dims,
    );
    expect([...out.argmax]).toEqual([1, NO_TOKEN, NO_TOKEN, NO_TOKEN]);
    expect(out.pooled[0]).toBeCloseTo(Math.log(4), 12);
    expect([out.pooled[1], out.pooled[2], out.pooled[3]]).toEqual([0, 0, 0]);
  });
});

describeKernelFamily(spladeHead);

describe('splade head on the GPU vs the float64 reference', () => {
  it('gives bit-identical gradients on repeated runs, accumulates, and skips gradients not asked for', async () => {
    const ctx = await gpuContext();
    const dims = { B: 4, T: 33, d: 8, V: 700 };
    const { B, T, d, V } = dims;
    const x = dyadicInputs(dims, [33, 20, 33, 1], 3);
    const head = new SpladeHead(ctx, dims);
    const hidden = ctx.tensor('hidden', [B, T, d], 'f32', x.hidden);
    const weight = ctx.tensor('weight', [V, d], 'f32', x.weight);
    const bias = ctx.tensor('bias', [V], 'f32', x.bias);
    const mask = ctx.tensor('mask f32', [B, T], 'f32', x.mask);
    const pooled = ctx.tensor('pooled', [B, V], 'f32');
    const argmax = ctx.tensor('argmax', [B, V], 'u32');
    const dpooled = ctx.tensor('dpooled', [B, V], 'f32', new Random(9).normals(B * V));
    const dhidden = ctx.tensor('dhidden', [B, T, d], 'f32');
    const dweight = ctx.tensor('dweight', [V, d], 'f32');
    const runs: Float32Array[][] = [];
    for (let run = 0; run < 2; run++) {
      await ctx.run('head', (enc) => {
        ctx.clear(enc, dhidden);
        ctx.clear(enc, dweight);
        head.forward(enc, { hidden, weight, bias, mask, pooled, argmax });
        head.backward(enc, { hidden, weight, pooled, argmax, dpooled, dhidden, dweight });
      });
      runs.push([await ctx.read(dhidden), await ctx.read(dweight)]);
    }
    const bits = (a: Float32Array) => [...new Uint32Array(a.buffer)];
    expect(bits(runs[1][0])).toEqual(bits(runs[0][0]));
    expect(bits(runs[1][1])).toEqual(bits(runs[0][1]));
    expect(runs[0][1].some((v) => v !== 0)).toBe(true);

    // dhidden alone: it accumulates (x + x is exact, so the result is exactly twice) and dweight is left alone
    await ctx.run('dhidden only', (enc) => head.backward(enc, { hidden, weight, pooled, argmax, dpooled, dhidden }));
    expect(bits(await ctx.read(dhidden))).toEqual(bits(runs[0][0].map((v) => 2 * v)));
    expect(bits(await ctx.read(dweight))).toEqual(bits(runs[0][1]));

    // dbias alone (dweight switched off) gives the same bits as dbias next to dweight; dweight stays untouched
    const dbiasAlone = ctx.tensor('dbias alone', [V], 'f32');
    const dbiasBoth = ctx.tensor('dbias both', [V], 'f32');
    const dweightBoth = ctx.tensor('dweight both', [V, d], 'f32');
    await ctx.run('dbias only', (enc) => {
      head.backward(enc, { hidden, weight, pooled, argmax, dpooled, dbias: dbiasAlone });
      head.backward(enc, { hidden, weight, pooled, argmax, dpooled, dbias: dbiasBoth, dweight: dweightBoth });
    });
    expect(bits(await ctx.read(dbiasAlone))).toEqual(bits(await ctx.read(dbiasBoth)));
    expect((await ctx.read(dbiasAlone)).some((v) => v !== 0)).toBe(true);
    expect(bits(await ctx.read(dweight))).toEqual(bits(runs[0][1]));
  });

  // A decoder too large for one binding comes in row parts (here 3, of odd sizes, one a single row): the forward and
  // the weight gradients are the whole weight's bit for bit; dhidden adds each part's share, so it rounds differently.
  it.each(['registers', 'tiled'] as const)(
    "a weight in row parts (%s forward) gives the whole weight's results",
    async (variant) => {
      const ctx = await gpuContext();
      const dims = { B: 3, T: 6, d: 8, V: 1000 };
      const { B, T, d, V } = dims;
      const x = dyadicInputs(dims, [6, 2, 5], 8);
      const ranges = [
        { row0: 0, rows: 300 },
        { row0: 300, rows: 1 },
        { row0: 301, rows: 699 },
      ];
      const dpooled = ctx.tensor('dpooled', [B, V], 'f32', new Random(4).normals(B * V));
      const hidden = ctx.tensor('hidden', [B, T, d], 'f32', x.hidden);
      const bias = ctx.tensor('bias', [V], 'f32', x.bias);
      const mask = ctx.tensor('mask', [B, T], 'f32', x.mask);
      const run = async (parts: typeof ranges | undefined) => {
        const head = new SpladeHead(ctx, { ...dims, parts }, { forwardVariant: variant });
        const split = <T>(make: (rows: number, row0: number) => T) =>
          (parts ?? [{ row0: 0, rows: V }]).map((r) => ({ row0: r.row0, tensor: make(r.rows, r.row0) }));
        const weight = split((rows, row0) =>
          ctx.tensor('weight part', [rows, d], 'f32', x.weight.slice(row0 * d, (row0 + rows) * d)),
        );
        const dweight = split((rows) => ctx.tensor('dweight part', [rows, d], 'f32'));
        const [pooled, argmax] = [ctx.tensor('pooled', [B, V], 'f32'), ctx.tensor('argmax', [B, V], 'u32')];
        const [dhidden, dbias] = [ctx.tensor('dhidden', [B, T, d], 'f32'), ctx.tensor('dbias', [V], 'f32')];
        await ctx.run('head in parts', (enc) => {
          head.forward(enc, { hidden, weight, bias, mask, pooled, argmax });
          head.backward(enc, { hidden, weight, pooled, argmax, dpooled, dhidden, dweight, dbias });
        });
        const whole = new Float32Array(V * d);
        for (const part of dweight) whole.set(await ctx.read(part.tensor), part.row0 * d);
        const bits = (a: Float32Array | Uint32Array) => [...new Uint32Array(a.buffer)];
        return {
          pooled: bits(await ctx.read(pooled)),
          argmax: [...(await ctx.read(argmax))],
          dweight: bits(whole),
          dbias: bits(await ctx.read(dbias)),
          dhidden: await ctx.read(dhidden),
        };
      };
      const [whole, parted] = [await run(undefined), await run(ranges)];
      expect(parted.pooled).toEqual(whole.pooled);
      expect(parted.argmax).toEqual(whole.argmax);
      expect(parted.dweight).toEqual(whole.dweight);
      expect(parted.dbias).toEqual(whole.dbias);
      parted.dhidden.forEach((v, i) => expect(v).toBeCloseTo(whole.dhidden[i], 5));
      expect(whole.dweight.some((b) => b !== 0)).toBe(true);
      expect(() =>
        new SpladeHead(ctx, dims).forward(ctx.encoder('mismatch'), {
          hidden,
          weight: [
            { row0: 0, tensor: ctx.tensor('w', [V, d], 'f32') },
            { row0: V, tensor: ctx.tensor('w2', [0 + 1, d], 'f32') },
          ],
          bias,
          mask,
          pooled: ctx.tensor('p', [B, V], 'f32'),
          argmax: ctx.tensor('a', [B, V], 'u32'),
        }),
      ).toThrow(/parts hold 1001 rows, expected 1000/);
    },
  );

  it.each([
    // budget: FLOPs of how many (sequence x 256-id slice) units; 1 slice of 1 sequence splits every sequence apart
    ['vocabulary chunks only', 3 * 2],
    ['sequence and vocabulary chunks', 1],
  ])('a forward split under a per-dispatch work budget (%s) equals the unsplit one bit for bit', async (_, units) => {
    const ctx = await gpuContext();
    const dims = { B: 3, T: 5, d: 8, V: 1000 };
    const { B, T, d, V } = dims;
    const x = dyadicInputs(dims, [5, 2, 5], 4);
    const slice = 4 * 64;
    const budget = units * 2 * T * slice * d;
    const run = async (head: SpladeHead) => {
      const pooled = ctx.tensor('pooled', [B, V], 'f32');
      const argmax = ctx.tensor('argmax', [B, V], 'u32');
      await ctx.run('head', (enc) =>
        head.forward(enc, {
          hidden: ctx.tensor('hidden', [B, T, d], 'f32', x.hidden),
          weight: ctx.tensor('weight', [V, d], 'f32', x.weight),
          bias: ctx.tensor('bias', [V], 'f32', x.bias),
          mask: ctx.tensor('mask', [B, T], 'f32', x.mask),
          pooled,
          argmax,
        }),
      );
      return [[...new Uint32Array((await ctx.read(pooled)).buffer)], [...(await ctx.read(argmax))]];
    };
    // the portability test mode (npm run test:portable) gives every head the smallest budget: split by default
    if (process.env.SPLADE_LAB_PORTABLE === '1')
      expect(new SpladeHead(ctx, dims).forwardDispatches).toBe(B * Math.ceil(V / slice));
    const whole = new SpladeHead(ctx, dims, { maxDispatchFlops: Infinity });
    const split = new SpladeHead(ctx, dims, { maxDispatchFlops: budget });
    expect(whole.forwardDispatches).toBe(1);
    expect(split.forwardDispatches).toBeGreaterThan(units === 1 ? B : 1);
    expect(split.largestDispatchFlops).toBeLessThanOrEqual(budget);
    expect(whole.largestDispatchFlops).toBe(2 * B * T * V * d);
    const [a, b] = [await run(whole), await run(split)];
    expect(b[0]).toEqual(a[0]);
    expect(b[1]).toEqual(a[1]);
    expect(a[0].some((bits) => bits !== 0)).toBe(true);
  });

  it('rejects operands of the wrong shape or type, naming them', async () => {
    const ctx = await gpuContext();
    const dims = { B: 2, T: 3, d: 8, V: 10 };
    const head = new SpladeHead(ctx, dims);
    const t = (label: string, shape: number[], dtype: 'f32' | 'u32' = 'f32') => ctx.tensor(label, shape, dtype);
    const args = {
      hidden: t('hidden', [2, 3, 8]),
      weight: t('weight', [10, 8]),
      bias: t('bias', [10]),
      mask: t('mask', [2, 3], 'u32'),
      pooled: t('pooled', [2, 10]),
      argmax: t('argmax', [2, 10], 'u32'),
    };
    const enc = ctx.encoder('bad');
    expect(() => head.forward(enc, { ...args, weight: t('weight', [8, 10]) })).toThrow(
      /weight must be \[10x8\]:f32, got weight\[8x10\]/,
    );
    expect(() => head.forward(enc, { ...args, argmax: t('argmax', [2, 10]) })).toThrow(/argmax must be \[2x10\]:u32/);
    expect(() => new SpladeHead(ctx, { B: 1, T: 1, d: 6, V: 4 })).toThrow(/multiple of 4/);
  });
});

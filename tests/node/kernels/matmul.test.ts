// Matmul family: the float64 reference against finite differences, and every GPU variant against the reference.
import { describe, expect, it } from 'vitest';
import { GpuKernelError } from '../../../src/gpu/errors.ts';
import { Matmul, checkWorkgroupFits, planMatmulPieces } from '../../../src/kernels/matmul.ts';
import { matmulBackward, matmulForward, resolveMatmul, type MatmulShape } from '../../../src/kernels/reference/matmul.ts';
import { Random } from '../../../src/util/random.ts';
import { describeKernelFamily } from '../../helpers/expect-kernel.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { withLoweredLimits } from '../../helpers/lowered-limits.ts';
import { checkGradients } from '../../helpers/gradcheck.ts';
import { describeOnCpu } from '../../helpers/portable-run.ts';
import { LAYOUTS, matmul } from './cases/matmul.ts';

describeOnCpu('matmul reference backward', () => {
  const cases: [string, MatmulShape][] = [
    ['nn with bias', { M: 3, N: 5, K: 4, layout: 'nn', bias: true }],
    ['nt with bias', { M: 4, N: 3, K: 5, layout: 'nt', bias: true }],
    ['tn with bias', { M: 5, N: 4, K: 3, layout: 'tn', bias: true }],
    ['nt batched, B broadcast', { M: 3, N: 2, K: 4, layout: 'nt', batch: 3, strides: { b: 0 } }],
    ['tn batched, A broadcast, bias', { M: 2, N: 3, K: 4, layout: 'tn', batch: 2, strides: { a: 0 }, bias: true }],
  ];
  it.each(cases)('%s matches central finite differences', (_, shape) => {
    const r = resolveMatmul(shape);
    const random = new Random(3);
    const inputs = { a: random.normals(r.extents.a), b: random.normals(r.extents.b), bias: random.normals(r.N) };
    checkGradients({
      inputs,
      forward: (x) => matmulForward(shape, x.a, x.b, r.bias ? x.bias : undefined),
      backward: (x, dout) => {
        const g = matmulBackward(shape, x.a, x.b, dout);
        return { a: g.da, b: g.db, bias: g.dbias };
      },
      wrt: r.bias ? ['a', 'b', 'bias'] : ['a', 'b'],
      samples: 40,
    });
  });
});

describeKernelFamily(matmul);

describe('matmul wrapper', () => {
  it('throws, naming the operand and expected shape, when an operand is wrongly shaped', async () => {
    const ctx = await gpuContext();
    const matmul = new Matmul(ctx, { M: 7, N: 5, K: 3, layout: 'nt', bias: true }, { label: 'proj' });
    const a = ctx.tensor('x', [7, 3], 'f32');
    const w = ctx.tensor('w', [5, 3], 'f32');
    const out = ctx.tensor('y', [7, 5], 'f32');
    const bias = ctx.tensor('b', [5], 'f32');
    const encoder = ctx.encoder('shape errors');
    expect(() => matmul.record(encoder, { a, b: ctx.tensor('w_t', [3, 5], 'f32'), out, bias })).toThrow(
      /operand b is w_t\[3x5\].*expected f32 \[5x3\]/,
    );
    expect(() => matmul.record(encoder, { a: ctx.tensor('x8', [8, 3], 'f32'), b: w, out, bias })).toThrow(
      /operand a is x8\[8x3\]/,
    );
    expect(() => matmul.record(encoder, { a, b: w, out: ctx.tensor('y6', [7, 6], 'f32'), bias })).toThrow(/operand out/);
    expect(() => matmul.record(encoder, { a, b: w, out, bias: ctx.tensor('b4', [4], 'f32') })).toThrow(/operand bias/);
    expect(() => matmul.record(encoder, { a, b: w, out })).toThrow(/built with a bias/);
    expect(() => matmul.record(encoder, { a, b: w, out: ctx.tensor('ids', [7, 5], 'u32'), bias })).toThrow(/expected f32/);
    // Merged leading dims are fine: (1, 7, 3) is the same (7, 3) matrix.
    expect(() => matmul.record(encoder, { a: ctx.tensor('x3d', [1, 7, 3], 'f32'), b: w, out, bias })).not.toThrow();
  });

  it('uses vec4 loads exactly when K, the strides and the contiguous dims are multiples of 4', async () => {
    const ctx = await gpuContext();
    const entry = (shape: MatmulShape) => new Matmul(ctx, shape, { variant: 'registers' }).entryPoint;
    for (const layout of LAYOUTS) expect(entry({ M: 36, N: 260, K: 12, layout }), layout).toBe('matmul_vec4');
    expect(entry({ M: 36, N: 260, K: 12, layout: 'nn', bias: true })).toBe('matmul_vec4_bias');
    expect(entry({ M: 7, N: 5, K: 12, layout: 'nt' })).toBe('matmul_vec4');
    expect(entry({ M: 8, N: 5, K: 12, layout: 'nn' })).toBe('matmul_registers');
    expect(entry({ M: 7, N: 8, K: 12, layout: 'tn' })).toBe('matmul_registers');
    expect(entry({ M: 8, N: 8, K: 7, layout: 'nt' })).toBe('matmul_registers');
    expect(entry({ M: 8, N: 8, K: 8, layout: 'nt', batch: 2, strides: { a: 66 } })).toBe('matmul_registers');
  });

  it('refuses a product that needs more workgroups than the device allows along one axis', async () => {
    const ctx = await gpuContext();
    const M = ctx.limits.maxComputeWorkgroupsPerDimension * 32 + 1;
    expect(() => new Matmul(ctx, { M, N: 1, K: 1, layout: 'nn' }, { variant: 'registers' })).toThrow(GpuKernelError);
  });

  it.each([
    ['registers', 'nn', 1],
    ['registers', 'tn', 3],
    ['tiled', 'nt', 2],
    ['tiled', 'nn', 1],
  ] as const)(
    'a product split under a per-dispatch budget (%s %s, batch %i) equals the unsplit one bit for bit',
    async (variant, layout, batch) => {
      const ctx = await gpuContext();
      const shape = { M: 70, N: 36, K: 20, layout, batch, bias: true, accumulate: true };
      const random = new Random(batch * 7 + layout.length);
      const a = random.normals(batch * 70 * 20);
      const b = random.normals(batch * 20 * 36);
      const bias = random.normals(36);
      const start = random.normals(batch * 70 * 36);
      const run = async (budget: number) => {
        const matmul = new Matmul(ctx, shape, { variant, maxDispatchFlops: budget });
        const out = ctx.tensor('out', [batch, 70, 36], 'f32', start);
        await ctx.run('matmul', (enc) =>
          matmul.record(enc, {
            a: ctx.tensor('a', layout === 'tn' ? [batch, 20, 70] : [batch, 70, 20], 'f32', a),
            b: ctx.tensor('b', layout === 'nt' ? [batch, 36, 20] : [batch, 20, 36], 'f32', b),
            out,
            bias: ctx.tensor('bias', [36], 'f32', bias),
          }),
        );
        return { bits: [...new Uint32Array((await ctx.read(out)).buffer)], dispatches: matmul.dispatches };
      };
      const whole = await run(Infinity);
      // one row of workgroups of one item: splits every item into rows
      const split = await run(2 * 4 * 8 * 36 * 20);
      expect(whole.dispatches).toBe(1);
      expect(split.dispatches).toBeGreaterThan(batch);
      expect(split.bits).toEqual(whole.bits);
      // whole items per dispatch when one fits
      const byItem = await run(2 * 70 * 36 * 20);
      expect(byItem.dispatches).toBe(batch);
      expect(byItem.bits).toEqual(whole.bits);
    },
  );

  it('plans pieces under a budget: whole items when one fits, rows of workgroups of one item otherwise', () => {
    const shape = { M: 32768, N: 3072, K: 768, batch: 1 };
    const pieces = planMatmulPieces(shape, [96, 512, 1], 16, 2e10);
    const flops = (p: { wgY: number; z: number }) => 2 * p.z * Math.min(p.wgY * 64, 32768) * 3072 * 768;
    expect(Math.max(...pieces.map(flops))).toBeLessThanOrEqual(2e10);
    expect(pieces.reduce((rows, p) => rows + p.wgY, 0)).toBe(512);
    expect(planMatmulPieces({ M: 8, N: 8, K: 8, batch: 6 }, [1, 1, 6], 8, 2 * 8 * 8 * 8 * 4)).toEqual([
      { wgY0: 0, wgY: 1, z0: 0, z: 4 },
      { wgY0: 0, wgY: 1, z0: 4, z: 2 },
    ]);
  });

  it('splits a batch past the workgroups per dimension into dispatches of at most that many items, bit-identical', async () => {
    const ctx = await gpuContext();
    const lowered = withLoweredLimits(ctx, { maxComputeWorkgroupsPerDimension: 4 });
    const batch = 11;
    const shape = { M: 5, N: 7, K: 3, layout: 'nn' as const, batch };
    const random = new Random(5);
    const [a, b] = [random.normals(batch * 5 * 3), random.normals(batch * 3 * 7)];
    const run = async (context: typeof ctx) => {
      const matmul = new Matmul(context, shape);
      const out = ctx.tensor('out', [batch, 5, 7], 'f32');
      await ctx.run('matmul', (enc) =>
        matmul.record(enc, { a: ctx.tensor('a', [batch, 5, 3], 'f32', a), b: ctx.tensor('b', [batch, 3, 7], 'f32', b), out }),
      );
      return { bits: [...new Uint32Array((await ctx.read(out)).buffer)], dispatches: matmul.dispatches };
    };
    const [whole, split] = [await run(ctx), await run(lowered)];
    expect(whole.dispatches).toBe(1);
    expect(split.dispatches).toBe(3);
    expect(split.bits).toEqual(whole.bits);
    expect(planMatmulPieces({ M: 8, N: 8, K: 8, batch: 7 }, [1, 1, 7], 8, Infinity, 3).map((p) => [p.z0, p.z])).toEqual([
      [0, 3],
      [3, 3],
      [6, 1],
    ]);
  });

  it('refuses a batched output stride below M·N (items would write the same elements; a stride of M·N or more is fine)', async () => {
    const ctx = await gpuContext();
    const shape = { M: 3, N: 5, K: 2, layout: 'nn' as const, batch: 2 };
    expect(() => new Matmul(ctx, { ...shape, strides: { c: 14 } })).toThrow('the stride of C (14) is below M·N = 15');
    expect(() => new Matmul(ctx, { ...shape, strides: { c: 0 } })).toThrow('below M·N');
    expect(() => new Matmul(ctx, { ...shape, strides: { c: 15 } })).not.toThrow();
    expect(() => new Matmul(ctx, { ...shape, strides: { c: 20 } })).not.toThrow();
  });

  it("refuses, when built, tiles or workgroups over the device's limits (not at the next sync)", async () => {
    const ctx = await gpuContext();
    const shape = { M: 64, N: 64, K: 64, layout: 'nn' as const };
    const storage = ctx.limits.maxComputeWorkgroupStorageSize;
    // (4·16 + 4·16) x TILE_K floats of workgroup memory: one TILE_K over the limit
    const tileK = Math.floor(storage / (4 * 4 * 32)) + 1;
    expect(() => new Matmul(ctx, shape, { variant: 'tiled', tileK })).toThrow(
      /TILE_K \d+ need \d+ bytes of workgroup memory, over maxComputeWorkgroupStorageSize/,
    );
    // one TILE_K less fits: the same check passes (building it would compile a kernel of 128-deep tiles, 14 s here)
    expect(() => checkWorkgroupFits(ctx, 'fits', 'tiled', 16, 16, tileK - 1)).not.toThrow();
    expect(
      () => new Matmul(ctx, shape, { variant: 'registers', workgroup: [ctx.limits.maxComputeWorkgroupSizeX + 1, 1] }),
    ).toThrow(/WG_X \d+ is over maxComputeWorkgroupSizeX/);
    // one row more than the invocation limit allows (NVIDIA's 1024 admits 32 x 32; SwiftShader's 256 does not)
    const { maxComputeWorkgroupSizeX, maxComputeInvocationsPerWorkgroup } = ctx.limits;
    const wgX = Math.min(maxComputeWorkgroupSizeX, maxComputeInvocationsPerWorkgroup);
    const wgY = Math.floor(maxComputeInvocationsPerWorkgroup / wgX) + 1;
    expect(() => new Matmul(ctx, shape, { variant: 'registers', workgroup: [wgX, wgY] })).toThrow(
      /over maxComputeInvocationsPerWorkgroup/,
    );
  });
});

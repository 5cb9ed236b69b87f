// The GPU runtime: adapter report with real limits, upload/readback, cached pipelines, the shared WGSL prelude, the
// WGSL dump switch, validation errors named, a Node device handed from a destroyed context to the next.
import { describe, expect, it } from 'vitest';
import { DeviceLostError, GpuKernelError, GpuLimitError } from '../../../src/gpu/errors.ts';
import { nodeGpuContext } from '../../../src/gpu/webgpu-node.ts';
import { gpuContext } from '../../helpers/gpu.ts';

const ADD_ONE = /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
override SCALE: f32 = 1.0;
@compute @workgroup_size(64) fn add_one(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&data)) { data[id.x] = data[id.x] * SCALE + 1.0; }
}`;

describe('gpu runtime', () => {
  it("requests the adapter's limits and reports them (WebGPU's defaults in the portability mode)", async () => {
    const ctx = await gpuContext();
    if (process.env.SPLADE_LAB_PORTABLE === '1') {
      expect(ctx.limits.maxStorageBufferBindingSize).toBe(128 * 1024 * 1024);
      expect(ctx.limits.maxComputeWorkgroupStorageSize).toBe(16 * 1024);
      expect(ctx.limits.maxComputeInvocationsPerWorkgroup).toBe(256);
      expect(ctx.limits.maxStorageBuffersPerShaderStage).toBe(8);
      return;
    }
    expect(ctx.adapter.limits.maxStorageBufferBindingSize).toBeGreaterThan(128 * 1024 * 1024);
    expect(ctx.limits.maxStorageBufferBindingSize).toBe(ctx.adapter.limits.maxStorageBufferBindingSize);
  });

  it('uploads, dispatches a cached pipeline with constants, and reads back', async () => {
    const ctx = await gpuContext();
    const t = ctx.tensor(
      'data',
      [3, 5],
      'f32',
      Array.from({ length: 15 }, (_, i) => i),
    );
    const spec = { family: 'test-add', source: ADD_ONE, entryPoint: 'add_one', constants: { SCALE: 2 } };
    await ctx.run('add', (enc) => ctx.dispatch(enc, spec, [t], [1], 'data[3x5]'));
    expect([...(await ctx.read(t))]).toEqual(Array.from({ length: 15 }, (_, i) => 2 * i + 1));
    expect(ctx.pipeline(spec)).toBe(ctx.pipeline({ ...spec }));
  });

  // The prelude's helpers in a family that declares none of them: the fixed-order sum over a 2-D folded grid.
  it('appends the shared prelude: workgroup_sum, workgroup_max and global_index work in any family', async () => {
    const ctx = await gpuContext();
    const source = /* wgsl */ `
@group(0) @binding(0) var<storage, read> data: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(WORKGROUP) fn sums(
  @builtin(global_invocation_id) id: vec3u,
  @builtin(num_workgroups) groups: vec3u,
  @builtin(local_invocation_index) lane: u32,
) {
  let i = global_index(id, groups);
  let sum = workgroup_sum(lane, data[i]);
  let top = workgroup_max(lane, data[i]);
  if (lane == 0u) { out[2u * (i / WORKGROUP)] = sum; out[2u * (i / WORKGROUP) + 1u] = top; }
}`;
    const values = Array.from({ length: 4 * 8 }, (_, i) => (i * 7) % 11);
    const data = ctx.tensor('data', [4, 8], 'f32', values);
    const out = ctx.tensor('out', [4, 2], 'f32');
    const spec = { family: 'test-prelude', source, entryPoint: 'sums', constants: { WORKGROUP: 8 } };
    await ctx.run('prelude', (enc) => ctx.dispatch(enc, spec, [data, out], [2, 2], 'data[4x8]'));
    const rows = [0, 1, 2, 3].map((r) => values.slice(8 * r, 8 * r + 8));
    expect([...(await ctx.read(out))]).toEqual(rows.flatMap((row) => [row.reduce((a, b) => a + b, 0), Math.max(...row)]));
    expect(() => ctx.pipeline({ ...spec, source: source + '\n' })).toThrow(/two different WGSL sources/);
  });

  it('SPLADE_LAB_DUMP_WGSL=1 switches on the WGSL dump: each new pipeline once, family source and prelude', async () => {
    const saved = process.env.SPLADE_LAB_DUMP_WGSL;
    process.env.SPLADE_LAB_DUMP_WGSL = '1';
    const dumping = await nodeGpuContext('dump test');
    delete process.env.SPLADE_LAB_DUMP_WGSL;
    const quiet = await nodeGpuContext('no dump test');
    if (saved !== undefined) process.env.SPLADE_LAB_DUMP_WGSL = saved;
    try {
      expect(dumping.dumpWgsl).toBe(true);
      expect(quiet.dumpWgsl).toBe(false);
      const dumped: { pipeline: string; code: string }[] = [];
      for (const ctx of [dumping, quiet]) ctx.wgslSink = (pipeline, code) => dumped.push({ pipeline, code });
      const spec = { family: 'test-add', source: ADD_ONE, entryPoint: 'add_one', constants: { SCALE: 2 } };
      for (const ctx of [dumping, dumping, quiet]) ctx.pipeline(spec);
      expect(dumped.map((d) => d.pipeline)).toEqual(['test-add.add_one{SCALE=2}']);
      expect(dumped[0].code).toContain(ADD_ONE);
      expect(dumped[0].code).toContain('fn workgroup_sum(');
    } finally {
      dumping.destroy();
      quiet.destroy();
    }
  });

  it('a destroyed Node context hands its live device to the next one: pipelines kept, its buffers gone, itself unusable', async () => {
    const first = await nodeGpuContext('reuse test 1');
    const spec = { family: 'test-add', source: ADD_ONE, entryPoint: 'add_one', constants: { SCALE: 3 } };
    const kept = first.tensor('kept', [4], 'f32', [1, 2, 3, 4]);
    await first.run('add', (enc) => first.dispatch(enc, spec, [kept], [1], 'kept[4]'));
    const pipeline = first.pipeline(spec);
    first.destroy();
    first.destroy(); // idempotent: the device is handed back once
    await expect(first.read(kept)).rejects.toThrow(DeviceLostError);
    const second = await nodeGpuContext('reuse test 2');
    const third = await nodeGpuContext('reuse test 3'); // the idle device is lent to one context at a time
    try {
      expect(second.device).toBe(first.device);
      expect(third.device).not.toBe(first.device);
      expect(second.pipeline(spec)).toBe(pipeline);
      // the first context's tensor was destroyed with it: binding it is a validation error on the live device
      await expect(second.run('use', (enc) => second.dispatch(enc, spec, [kept], [1], 'kept[4]'))).rejects.toThrow(
        GpuKernelError,
      );
      const fresh = second.tensor('fresh', [4], 'f32', [1, 2, 3, 4]);
      await second.run('add', (enc) => second.dispatch(enc, spec, [fresh], [1], 'fresh[4]'));
      expect([...(await second.read(fresh))]).toEqual([4, 7, 10, 13]);
    } finally {
      second.destroy();
      third.destroy();
    }
  });

  it('turns a validation error into an exception naming the kernel and shapes', async () => {
    const ctx = await gpuContext();
    const u = ctx.tensor('ids', [4], 'u32');
    const spec = { family: 'test-add', source: ADD_ONE, entryPoint: 'no_such_entry' };
    await expect(ctx.run('bad', (enc) => ctx.dispatch(enc, spec, [u], [1], 'ids[4]'))).rejects.toThrow(GpuKernelError);
  });

  it('frees everything an owned scope allocated (nested scopes too), and a freed tensor can no longer be used', async () => {
    const ctx = await gpuContext();
    const before = ctx.allocatedBytes;
    const spec = { family: 'test-add', source: ADD_ONE, entryPoint: 'add_one', constants: { SCALE: 2 } };
    const outer = ctx.owned(() => {
      const a = ctx.tensor('a', [64], 'f32');
      const inner = ctx.owned(() => ctx.tensor('b', [128], 'f32'));
      ctx.uniform('u', 4);
      return { a, b: inner.value };
    });
    expect(outer.bytes).toBe(64 * 4 + 128 * 4 + 16);
    expect(ctx.allocatedBytes - before).toBe(outer.bytes);
    await ctx.run('use a', (enc) => ctx.dispatch(enc, spec, [outer.value.a], [1], 'a[64]'));
    outer.destroy();
    outer.destroy(); // idempotent
    expect(ctx.allocatedBytes).toBe(before);
    await expect(ctx.run('use freed a', (enc) => ctx.dispatch(enc, spec, [outer.value.a], [1], 'a[64]'))).rejects.toThrow(
      GpuKernelError,
    );
  });

  it('an owned scope whose build throws frees what it allocated', async () => {
    const ctx = await gpuContext();
    const before = ctx.allocatedBytes;
    expect(() =>
      ctx.owned(() => {
        ctx.tensor('c', [32], 'f32');
        throw new Error('build failed');
      }),
    ).toThrow('build failed');
    expect(ctx.allocatedBytes).toBe(before);
  });

  it('refuses a tensor over the binding limit before allocating', async () => {
    const ctx = await gpuContext();
    expect(() => ctx.tensor('huge', [ctx.limits.maxStorageBufferBindingSize, 2], 'f32')).toThrow(GpuLimitError);
  });
});

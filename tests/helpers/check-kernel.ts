// One check of a GPU kernel against its float64 reference (after tinygrad's helper_test_op and jax-js's toBeAllclose),
// framework-free so that vitest (expect-kernel.ts) and the browser worker (tests/browser/kernel-worker.ts) share it.
//
// checkKernel builds the kernel and its named tensors inside ctx.owned, fills every tensor with known contents
// (seeded values where the test gives none, so an output the kernel fails to write, or overwrites where it should
// add, is caught), runs it, and checks: each checked tensor against the reference with rtol/atol (forward outputs
// and every gradient; a gradient marked `accumulates` must equal its initial contents plus the reference's gradient);
// a second run gives the same bits in every tensor read; running allocates nothing; and ctx.allocatedBytes returns
// to where it started once the scope is destroyed. It returns the failures instead of throwing.
import type { GpuContext, Owned } from '../../src/gpu/context.ts';
import type { DType, Tensor } from '../../src/gpu/tensor.ts';
import { Random } from '../../src/util/random.ts';
import { closeFailure, EXACT, type Tolerance } from './allclose.ts';

export interface KernelTensor {
  shape: number[];
  /** Default f32. */
  dtype?: DType;
  /** Initial contents. Omitted: seeded N(0, 1) values (f32) or a sentinel word (u32, i32). */
  data?: ArrayLike<number>;
}

export interface TensorCheck {
  /** Default: the test's `tolerance` for f32 tensors and host values, EXACT for u32 and i32 tensors. */
  tol?: Tolerance;
  /** The kernel adds into this tensor: the reference gives what is added, the helper adds the initial contents. */
  accumulates?: boolean;
}

/** What a test's `build` returns: how to run the kernel once, and tensors the kernel owns that are read too. */
export interface BuiltKernel {
  /** Records the kernel into one command encoder; the helper submits it and waits. */
  record?: (encoder: GPUCommandEncoder) => void;
  /** Or runs the kernel with its own submits; host values it returns (statistics read back) are checked too. */
  run?: () => Promise<Record<string, ArrayLike<number>> | void>;
  /** Kernel-owned tensors (saved activations, loss slots) to read back, compare between runs and check. */
  tensors?: Record<string, Tensor>;
}

export interface KernelTest {
  /** Names the case in every failure. */
  name: string;
  /** The helper's tensors, allocated (and freed) by the helper and passed to `build` by name. */
  tensors: Record<string, KernelTensor>;
  /** Builds the kernel inside the helper's owned scope: everything it allocates must be freed with it. */
  build: (ctx: GpuContext, t: Record<string, Tensor>) => BuiltKernel;
  /**
   * Float64 reference from the initial contents of every helper tensor (f32 ones rounded to f32, as the GPU sees
   * them); `gpu` holds the first run's results, for a reference that must follow the GPU through a discrete choice
   * (an argmax, a histogram range). Returns the expected contents of each checked tensor (what is added, for those
   * that accumulate).
   */
  reference: (host: Record<string, Float64Array>, gpu: Record<string, Float64Array>) => Record<string, ArrayLike<number>>;
  /** The tensors (or host values) compared with the reference; at least one. */
  checks: Record<string, TensorCheck>;
  /** Default tolerance of f32 checks. */
  tolerance?: Tolerance;
  /** The kernel keeps state from run to run (optimiser moments): the repeat builds it afresh instead of rerunning. */
  stateful?: boolean;
  /** Seed of the contents the helper makes up. Default: from the name. */
  seed?: number;
}

export interface KernelReport {
  /** Empty when every check passed. */
  failures: string[];
  /** The first run's contents of every tensor read and every host value returned. */
  gpu: Record<string, Float64Array>;
  /** What each check expected (initial contents added for accumulating ones). */
  expected: Record<string, Float64Array>;
}

type Words = Float32Array | Uint32Array | Int32Array;

const SENTINEL: Record<DType, number> = { f32: 0, u32: 0xdeadbeef, i32: -123456789 };

interface Instance {
  scope: Owned<BuiltKernel>;
  t: Record<string, Tensor>;
}

/** Runs `test` and returns its failures (none: the kernel agrees with its reference, repeats and frees its memory). */
export async function checkKernel(ctx: GpuContext, test: KernelTest): Promise<KernelReport> {
  const failures: string[] = [];
  const fail = (message: string) => failures.push(`${test.name}: ${message}`);
  const initial = initialContents(test);
  const start = ctx.allocatedBytes;

  let instance = build(ctx, test, initial);
  const first = await runOnce(ctx, test, instance, initial, fail);
  if (test.stateful) {
    instance.scope.destroy();
    instance = build(ctx, test, initial);
  }
  const second = await runOnce(ctx, test, instance, initial, fail);
  instance.scope.destroy();
  if (ctx.allocatedBytes !== start) {
    fail(`ctx.allocatedBytes is ${ctx.allocatedBytes} after the kernel's scope was destroyed, ${start} before it was built`);
  }

  for (const [name, words] of Object.entries(first)) {
    const at = firstDifference(words, second[name]);
    if (at >= 0) fail(`${name} differs between two identical runs at element ${at}: ${words[at]} then ${second[name][at]}`);
  }

  const gpu = mapValues(first, (words) => Float64Array.from(words));
  const host = mapValues(initial, (words) => Float64Array.from(words));
  const reference = test.reference(host, gpu);
  const expected: Record<string, Float64Array> = {};
  if (Object.keys(test.checks).length === 0) fail('checks nothing');
  for (const [name, check] of Object.entries(test.checks)) {
    const actual = gpu[name];
    const want = reference[name];
    if (!actual) {
      fail(`check "${name}" names no tensor or host value`);
      continue;
    }
    if (!want) {
      fail(`the reference gives no "${name}"`);
      continue;
    }
    const sum = Float64Array.from(want);
    if (check.accumulates) {
      const before = host[name];
      if (!before) {
        fail(`"${name}" accumulates but is not one of the helper's tensors (no initial contents)`);
        continue;
      }
      for (let i = 0; i < sum.length; i++) sum[i] += before[i];
    }
    expected[name] = sum;
    const integer = first[name] instanceof Uint32Array || first[name] instanceof Int32Array;
    const tol = check.tol ?? (integer ? EXACT : test.tolerance);
    if (!tol) {
      fail(`"${name}" has no tolerance (give the check a tol or the test a tolerance)`);
      continue;
    }
    const failure = closeFailure(name, actual, sum, tol);
    if (failure) fail(failure);
  }
  return { failures, gpu, expected };
}

/** The helper's tensors' initial contents: the test's data, or seeded values and sentinels, as the GPU will hold them. */
function initialContents(test: KernelTest): Record<string, Words> {
  const random = new Random(test.seed ?? seedOf(test.name));
  return mapValues(test.tensors, (spec) => {
    const dtype = spec.dtype ?? 'f32';
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const words = dtype === 'f32' ? new Float32Array(size) : dtype === 'u32' ? new Uint32Array(size) : new Int32Array(size);
    if (spec.data) {
      if (spec.data.length !== size)
        throw new Error(`${test.name}: tensor data of ${spec.data.length} values for shape [${spec.shape}]`);
      words.set(spec.data);
    } else if (dtype === 'f32') {
      words.set(random.normals(size));
    } else {
      words.fill(SENTINEL[dtype]);
    }
    return words;
  });
}

function build(ctx: GpuContext, test: KernelTest, initial: Record<string, Words>): Instance {
  let t: Record<string, Tensor> = {};
  const scope = ctx.owned(() => {
    t = mapValues(test.tensors, (spec, name) =>
      ctx.tensor(`${test.name} ${name}`, spec.shape, spec.dtype ?? 'f32', initial[name]),
    );
    const built = test.build(ctx, t);
    if (!built.record === !built.run) throw new Error(`${test.name}: build must return exactly one of record and run`);
    return built;
  });
  return { scope, t };
}

/** Resets every helper tensor, runs the kernel once and reads every tensor (and host value) back. */
async function runOnce(
  ctx: GpuContext,
  test: KernelTest,
  { scope, t }: Instance,
  initial: Record<string, Words>,
  fail: (message: string) => void,
): Promise<Record<string, ArrayLike<number>>> {
  const built = scope.value;
  for (const [name, tensor] of Object.entries(t)) ctx.upload(tensor, initial[name]);
  const before = ctx.allocatedBytes;
  let values: Record<string, ArrayLike<number>> = {};
  if (built.record) await ctx.run(test.name, built.record);
  else values = (await built.run!()) ?? {};
  await ctx.sync();
  if (ctx.allocatedBytes !== before) fail(`running allocated ${ctx.allocatedBytes - before} bytes (allocate once, at build)`);
  const read: Record<string, ArrayLike<number>> = {};
  for (const [name, tensor] of [...Object.entries(t), ...Object.entries(built.tensors ?? {})])
    read[name] = await ctx.read(tensor);
  for (const [name, value] of Object.entries(values)) {
    if (name in read) throw new Error(`${test.name}: run returned "${name}", also a tensor's name`);
    read[name] = Float64Array.from(value);
  }
  return read;
}

/** Index of the first element whose bits differ (NaN payloads included), -1 when none. */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return 0;
  const bitsA = bitsOf(a);
  const bitsB = bitsOf(b);
  for (let i = 0; i < bitsA.length; i++) if (bitsA[i] !== bitsB[i]) return Math.floor(i / (bitsA.length / a.length));
  return -1;
}

function bitsOf(values: ArrayLike<number>): Uint32Array {
  if (ArrayBuffer.isView(values)) {
    const view = values as unknown as ArrayBufferView;
    return new Uint32Array(view.buffer, view.byteOffset, view.byteLength / 4);
  }
  return new Uint32Array(Float64Array.from(values).buffer);
}

function seedOf(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function mapValues<A, B>(record: Record<string, A>, f: (value: A, key: string) => B): Record<string, B> {
  const out: Record<string, B> = {};
  for (const [key, value] of Object.entries(record)) out[key] = f(value, key);
  return out;
}

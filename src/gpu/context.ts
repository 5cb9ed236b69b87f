// GpuContext: one device with its real limits, a pipeline and bind-group cache, tensors, dispatch and readback.
// One class in one file (about 450 lines): every method reads or writes the same device, caches and allocation
// ledger (bytes in use, the lost-device state), so splitting it would spread one invariant over several files.
import { AdapterReport } from '../contract/model/gpu-report.ts';
import { DeviceLostError, GpuKernelError, GpuLimitError, GpuOutOfMemoryError } from './errors.ts';
import { pipelineKey, shaderCode, type KernelSpec } from './kernel-spec.ts';
import { Tensor, typedArrayFor, type DType, type TypedArrayOf } from './tensor.ts';

export { f32Bits, grid1d, shaderCode, type KernelSpec } from './kernel-spec.ts';

/** What `owned` returns: the built value, the bytes it allocated, and one call that frees them. */
export interface Owned<T> {
  value: T;
  bytes: number;
  /** Bytes of each buffer, in the order they were created (the same build code creates them in the same order). */
  sizes: number[];
  destroy(): void;
}

/** Whether an adapter computes on the CPU: a fallback adapter, or SwiftShader (which Chromium does not mark as one). */
export function adapterOnCpu(adapter: Pick<AdapterReport, 'isFallbackAdapter' | 'architecture'>): boolean {
  return adapter.isFallbackAdapter || adapter.architecture === 'swiftshader';
}

/** A resource at a binding index; `null` leaves that index out (an entry point that does not use it). */
type Binding = Tensor | GPUBuffer | null;

/** Compiled shader modules and pipelines of one device: kept with the device, so a context that reuses it compiles nothing again. */
interface DeviceCompiled {
  readonly modules: Map<string, { source: string; module: GPUShaderModule }>;
  readonly pipelines: Map<string, GPUComputePipeline>;
}

const compiledByDevice = new WeakMap<GPUDevice, DeviceCompiled>();

function compiledOf(device: GPUDevice): DeviceCompiled {
  let compiled = compiledByDevice.get(device);
  if (!compiled) {
    compiled = { modules: new Map(), pipelines: new Map() };
    compiledByDevice.set(device, compiled);
  }
  return compiled;
}

/**
 * What `destroy()` does with the device: `destroy` it (the default), or hand it back to whoever lent it (a live
 * device, all of this context's buffers destroyed) so that the next context on it keeps its compiled pipelines.
 */
export type ReleaseDevice = (device: GPUDevice) => void;

export class GpuContext {
  private readonly modules: Map<string, { source: string; module: GPUShaderModule }>;
  private readonly pipelines: Map<string, GPUComputePipeline>;
  /** Every buffer this context created and has not freed (a buffer is freed once), destroyed with the context when its device lives on. */
  private readonly liveBuffers = new Set<GPUBuffer>();
  private released = false;
  private readonly bindGroups = new Map<string, GPUBindGroup>();
  /** The compute pass open on each encoder being recorded (see endPass). */
  private readonly openPasses = new WeakMap<GPUCommandEncoder, GPUComputePassEncoder>();
  /** The pipeline each spec object compiled to (a spec's fields never change once dispatched). */
  private readonly pipelineOfSpec = new WeakMap<KernelSpec, GPUComputePipeline>();
  /** The buffers each cached bind group refers to, so freeing a buffer drops its bind groups. */
  private readonly bindGroupBuffers = new Map<string, GPUBuffer[]>();
  private readonly stagingBuffers = new Map<number, GPUBuffer[]>();
  private readonly pendingErrors: Promise<GpuKernelError | null>[] = [];
  private lostInfo: GPUDeviceLostInfo | null = null;
  private readonly lostListeners: ((message: string) => void)[] = [];
  /** Buffers created inside `owned(...)` calls, innermost last. */
  private readonly scopes: GPUBuffer[][] = [];
  /** Inside `measure(...)`: buffers are only recorded (their sizes), never created. */
  private measuring: number[] | null = null;
  private readonly unallocated = new WeakSet<GPUBuffer>();
  /** Bytes of the tensors and uniforms created and not yet freed through `owned`. */
  allocatedBytes = 0;
  /**
   * What this context has recorded and read so far, for per-step figures (the bench): compute dispatches (each in its
   * own compute pass), command buffers submitted by `submit`, and readbacks (each one wait for the queue to drain).
   */
  readonly counts = { dispatches: 0, submits: 0, readbacks: 0 };
  /** The adapter computes on the CPU (a fallback adapter, or SwiftShader): kernels pick their CPU-shaped variants. */
  readonly onCpu: boolean;
  /** Most FLOPs one dispatch of a splittable kernel may do (null: the kernel's default for this adapter). */
  maxDispatchFlops: number | null = null;
  /**
   * When true, every new pipeline's WGSL (family source + prelude, as compiled) goes to `wgslSink` (STYLE.md: a
   * debug switch dumps the WGSL). Node: set by SPLADE_LAB_DUMP_WGSL=1 (nodeGpuContext); browser: the caller passes
   * `dumpWgsl` to acquireGpuContext or sets this field.
   */
  dumpWgsl = false;
  /** Where dumped WGSL goes; stderr by default, so that a CLI's stdout stays machine-readable. */
  wgslSink: (pipeline: string, code: string) => void = (pipeline, code) => console.error(`// pipeline ${pipeline}\n${code}`);

  constructor(
    readonly device: GPUDevice,
    readonly adapter: AdapterReport,
    private readonly releaseDevice: ReleaseDevice | null = null,
  ) {
    this.onCpu = adapterOnCpu(adapter);
    ({ modules: this.modules, pipelines: this.pipelines } = compiledOf(device));
    void device.lost.then((info) => {
      this.lostInfo = info;
      for (const listener of this.lostListeners) listener(info.message);
    });
  }

  get limits(): GPUSupportedLimits {
    return this.device.limits;
  }

  get isLost(): boolean {
    return this.lostInfo !== null;
  }

  onLost(listener: (message: string) => void): void {
    this.lostListeners.push(listener);
  }

  /**
   * A binding limit below the device's (bytes), for tests of what runs split across bindings (a device cannot be
   * asked for less than WebGPU's default); null: the device's own.
   */
  bindingLimitOverride: number | null = null;

  /** The most bytes one storage binding may hold here: the device's maxStorageBufferBindingSize, or the override. */
  get bindingLimit(): number {
    const device = this.limits.maxStorageBufferBindingSize;
    return this.bindingLimitOverride === null ? device : Math.min(device, this.bindingLimitOverride);
  }

  /** Throws a GpuLimitError if a single binding of `bytes` would exceed the device's limits. */
  checkBindingSize(what: string, bytes: number): void {
    const binding = this.bindingLimit;
    if (bytes > binding) throw new GpuLimitError(what, bytes, 'maxStorageBufferBindingSize', binding);
    const buffer = this.limits.maxBufferSize;
    if (bytes > buffer) throw new GpuLimitError(what, bytes, 'maxBufferSize', buffer);
  }

  /** Allocates a storage tensor (zero-filled, or filled with `data`). */
  tensor<D extends DType>(label: string, shape: readonly number[], dtype: D, data?: ArrayLike<number>): Tensor<D> {
    this.assertAlive();
    const size = shape.reduce((a, b) => a * b, 1);
    const bytes = Math.max(4, size * 4);
    this.checkBindingSize(`tensor "${label}" [${shape.join('x')}]`, bytes);
    const buffer = this.createTracked({
      label,
      size: Math.ceil(bytes / 4) * 4,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
    const tensor = new Tensor(buffer, [...shape], dtype, label);
    if (data) this.upload(tensor, data);
    return tensor;
  }

  /**
   * The buffers `build` would create, by size in creation order, without creating any (nor writing to them): what a
   * trainer of some shape would take, known before it is allocated. A buffer over the device's limits still throws.
   */
  measure(build: () => unknown): number[] {
    if (this.measuring) throw new Error('measure() calls do not nest');
    const sizes: number[] = [];
    this.measuring = sizes;
    try {
      build();
    } finally {
      this.measuring = null;
    }
    return sizes;
  }

  /** Writes host data into a tensor (converting to its element type). */
  upload<D extends DType>(tensor: Tensor<D>, data: ArrayLike<number>): void {
    if (this.unallocated.has(tensor.buffer)) return;
    if (data.length !== tensor.size) {
      throw new Error(`upload to ${tensor}: got ${data.length} values, expected ${tensor.size}`);
    }
    const typed = typedArrayFor(tensor.dtype, tensor.size);
    typed.set(data);
    this.device.queue.writeBuffer(tensor.buffer, 0, typed.buffer, typed.byteOffset, typed.byteLength);
  }

  /** A small uniform buffer of u32/f32 words, created once per kernel instance. */
  uniform(label: string, words: number): GPUBuffer {
    return this.createTracked({
      label,
      size: Math.max(16, Math.ceil((words * 4) / 16) * 16),
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
  }

  /**
   * Runs `build` and returns its value with a `destroy()` that frees every tensor and uniform created meanwhile
   * (a model, a trainer, an encoder) at once, and forgets their cached bind groups. Scopes nest.
   */
  owned<T>(build: () => T): Owned<T> {
    const buffers: GPUBuffer[] = [];
    this.scopes.push(buffers);
    let value: T;
    try {
      value = build();
    } catch (error) {
      this.scopes.pop();
      this.free(buffers);
      throw error;
    }
    this.scopes.pop();
    return this.ownedHandle(value, buffers);
  }

  /**
   * `owned` for an asynchronous build (a training run). Every allocation until it settles joins the scope, so the
   * caller must not allocate anything else meanwhile (the worker serializes its GPU work).
   */
  async ownedAsync<T>(build: () => Promise<T>): Promise<Owned<T>> {
    const buffers: GPUBuffer[] = [];
    this.scopes.push(buffers);
    let value: T;
    try {
      value = await build();
    } catch (error) {
      this.scopes.splice(this.scopes.lastIndexOf(buffers), 1);
      this.free(buffers);
      throw error;
    }
    this.scopes.splice(this.scopes.lastIndexOf(buffers), 1);
    return this.ownedHandle(value, buffers);
  }

  private ownedHandle<T>(value: T, buffers: GPUBuffer[]): Owned<T> {
    this.scopes.at(-1)?.push(...buffers);
    const bytes = buffers.reduce((sum, b) => sum + b.size, 0);
    let freed = false;
    return {
      value,
      bytes,
      sizes: buffers.map((b) => b.size),
      destroy: () => {
        if (freed) return;
        freed = true;
        this.free(buffers);
      },
    };
  }

  /**
   * Runs `build` (allocations) under an out-of-memory error scope: a buffer the device could not allocate becomes a
   * GpuOutOfMemoryError naming `what`, the bytes asked for and the bytes held when it failed.
   */
  async checkingMemory<T>(what: string, build: () => T | Promise<T>): Promise<T> {
    const before = this.allocatedBytes;
    this.device.pushErrorScope('out-of-memory');
    let outcome: { value: T } | { error: unknown };
    try {
      outcome = { value: await build() };
    } catch (error) {
      outcome = { error };
    }
    const oom = await this.device.popErrorScope();
    // an allocation the device refused explains whatever else went wrong after it
    if (oom) throw new GpuOutOfMemoryError(what, this.allocatedBytes - before, this.allocatedBytes, oom.message);
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  /** Writes u32 words into a uniform buffer (encode floats with `f32Bits`). */
  writeUniform(buffer: GPUBuffer, words: readonly number[]): void {
    if (this.unallocated.has(buffer)) return;
    const data = new Uint32Array(words);
    this.device.queue.writeBuffer(buffer, 0, data.buffer, 0, data.byteLength);
  }

  /** The cached pipeline of a kernel spec (compiled once per family, entry point and constants). */
  pipeline(spec: KernelSpec): GPUComputePipeline {
    // a kernel keeps its spec object: after its first dispatch, one look-up by identity (no key, no source compared)
    const known = this.pipelineOfSpec.get(spec);
    if (known) return known;
    const module = this.shaderModule(spec); // first: a cached pipeline must also be of this very source
    const key = pipelineKey(spec);
    let pipeline = this.pipelines.get(key);
    if (pipeline) {
      this.pipelineOfSpec.set(spec, pipeline);
      return pipeline;
    }
    if (this.dumpWgsl) this.wgslSink(key, shaderCode(spec.source));
    this.device.pushErrorScope('validation');
    pipeline = this.device.createComputePipeline({
      label: key,
      layout: 'auto',
      compute: { module, entryPoint: spec.entryPoint, constants: spec.constants },
    });
    this.trackErrors(spec.family + '.' + spec.entryPoint, 'pipeline creation');
    this.pipelines.set(key, pipeline);
    this.pipelineOfSpec.set(spec, pipeline);
    return pipeline;
  }

  /** The compiled module of a family (its source + the prelude), once per family; one family has one source. */
  private shaderModule(spec: KernelSpec): GPUShaderModule {
    const cached = this.modules.get(spec.family);
    if (cached) {
      if (cached.source !== spec.source) {
        throw new GpuKernelError(
          spec.family,
          spec.entryPoint,
          'two different WGSL sources were given under one family name; give each its own family',
        );
      }
      return cached.module;
    }
    this.device.pushErrorScope('validation');
    const module = this.device.createShaderModule({ label: spec.family, code: shaderCode(spec.source) });
    this.trackErrors(`shaders/${spec.family}.wgsl (+ shaders/prelude.wgsl appended)`, 'shader compilation');
    this.modules.set(spec.family, { source: spec.source, module });
    return module;
  }

  /**
   * Records one compute dispatch into `encoder`, in the compute pass open on it (one is begun if none is: see endPass).
   * Bindings are group 0, binding i = bindings[i] (null: unused).
   * `shapes` names the operands in errors.
   */
  dispatch(
    encoder: GPUCommandEncoder,
    spec: KernelSpec,
    bindings: readonly Binding[],
    workgroups: readonly [number, number?, number?],
    shapes: string,
  ): void {
    const pipeline = this.pipeline(spec);
    const [x, y = 1, z = 1] = workgroups;
    const maxGroups = this.limits.maxComputeWorkgroupsPerDimension;
    if (x > maxGroups || y > maxGroups || z > maxGroups) {
      throw new GpuKernelError(
        `${spec.family}.${spec.entryPoint}`,
        shapes,
        `dispatch of ${x}x${y}x${z} workgroups exceeds maxComputeWorkgroupsPerDimension ${maxGroups}`,
      );
    }
    if (x === 0 || y === 0 || z === 0) return;
    this.counts.dispatches++;
    const bindGroup = this.bindGroup(spec, pipeline, bindings, shapes);
    let pass = this.openPasses.get(encoder);
    if (!pass) {
      pass = encoder.beginComputePass({ label: `${encoder.label}: from ${spec.family}.${spec.entryPoint}` });
      this.openPasses.set(encoder, pass);
    }
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(x, y, z);
  }

  /**
   * Ends the compute pass open on `encoder`, if any. Consecutive dispatches share one pass (WebGPU orders each
   * dispatch's storage writes before the next dispatch reads them); a copy, a clear or the submit ends it first.
   */
  endPass(encoder: GPUCommandEncoder): void {
    const pass = this.openPasses.get(encoder);
    if (!pass) return;
    pass.end();
    this.openPasses.delete(encoder);
  }

  /** Records a copy of `bytes` bytes between two buffers into `encoder` (after ending its open pass). */
  copy(encoder: GPUCommandEncoder, from: GPUBuffer, fromOffset: number, to: GPUBuffer, toOffset: number, bytes: number): void {
    this.endPass(encoder);
    encoder.copyBufferToBuffer(from, fromOffset, to, toOffset, bytes);
  }

  /** Creates a command encoder; finish with `submit`. */
  encoder(label: string): GPUCommandEncoder {
    this.assertAlive();
    return this.device.createCommandEncoder({ label });
  }

  submit(encoder: GPUCommandEncoder): void {
    this.endPass(encoder);
    this.counts.submits++;
    this.device.pushErrorScope('validation');
    this.device.queue.submit([encoder.finish()]);
    this.trackErrors(encoder.label || 'command encoder', 'submit');
  }

  /** Records, submits and waits for one encoder's worth of work. */
  async run(label: string, record: (encoder: GPUCommandEncoder) => void): Promise<void> {
    const encoder = this.encoder(label);
    record(encoder);
    this.submit(encoder);
    await this.sync();
  }

  /** Waits for all submitted work and raises the first validation error seen since the last sync. */
  async sync(): Promise<void> {
    await this.device.queue.onSubmittedWorkDone();
    await this.throwPendingErrors();
    this.assertAlive();
  }

  /** Copies a tensor (or its first `count` elements) back to the host. */
  async read<D extends DType>(tensor: Tensor<D>, count = tensor.size): Promise<TypedArrayOf<D>> {
    const [copy] = await this.copyBack([{ tensor, bytes: count * 4 }]);
    return copy;
  }

  /**
   * Copies several tensors back in one submission and one wait (a report step's losses, statistics, gradient norm
   * and health flags: each separate read would drain the queue once more). The copies are in the given order.
   */
  readAll<D extends DType>(tensors: readonly Tensor<D>[]): Promise<TypedArrayOf<D>[]> {
    return this.copyBack(tensors.map((tensor) => ({ tensor, bytes: tensor.size * 4 })));
  }

  /** The first `bytes` of each tensor, copied into one staging buffer by one encoder, then read after one wait. */
  private async copyBack<D extends DType>(parts: readonly { tensor: Tensor<D>; bytes: number }[]): Promise<TypedArrayOf<D>[]> {
    this.assertAlive();
    const offsets: number[] = [];
    let bytes = 0;
    for (const part of parts) {
      offsets.push(bytes);
      bytes += part.bytes;
    }
    if (bytes === 0) return parts.map((p) => typedArrayFor(p.tensor.dtype, new ArrayBuffer(0)));
    this.counts.readbacks++;
    const staging = this.takeStaging(bytes);
    const encoder = this.device.createCommandEncoder({ label: `read ${parts.map((p) => p.tensor.label).join(', ')}` });
    parts.forEach((p, i) => encoder.copyBufferToBuffer(p.tensor.buffer, 0, staging, offsets[i], p.bytes));
    this.device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ, 0, bytes);
    const copy = staging.getMappedRange(0, bytes).slice(0);
    staging.unmap();
    this.returnStaging(bytes, staging);
    await this.throwPendingErrors();
    return parts.map((p, i) => typedArrayFor(p.tensor.dtype, copy.slice(offsets[i], offsets[i] + p.bytes)));
  }

  /** Fills a tensor with zeros (records into `encoder`). */
  clear(encoder: GPUCommandEncoder, tensor: Tensor): void {
    this.endPass(encoder);
    encoder.clearBuffer(tensor.buffer);
  }

  /** Frees everything this context holds; the device is destroyed, or handed back live when it was lent. Idempotent. */
  destroy(): void {
    if (this.released) return;
    this.released = true;
    for (const list of this.stagingBuffers.values()) for (const buffer of list) buffer.destroy();
    this.stagingBuffers.clear();
    if (this.releaseDevice && !this.lostInfo) {
      for (const buffer of this.liveBuffers) buffer.destroy();
      this.liveBuffers.clear();
      this.bindGroups.clear();
      this.bindGroupBuffers.clear();
      this.releaseDevice(this.device);
    } else {
      this.device.destroy();
    }
  }

  private createTracked(descriptor: GPUBufferDescriptor): GPUBuffer {
    if (this.measuring) {
      this.measuring.push(descriptor.size);
      // a stand-in that only knows its size: writes to it are skipped, and nothing can bind it
      const standIn = {
        size: descriptor.size,
        label: descriptor.label ?? '',
        usage: descriptor.usage,
        destroy() {},
      } as unknown as GPUBuffer;
      this.unallocated.add(standIn);
      return standIn;
    }
    const buffer = this.device.createBuffer(descriptor);
    this.allocatedBytes += buffer.size;
    this.liveBuffers.add(buffer);
    this.scopes.at(-1)?.push(buffer);
    return buffer;
  }

  private free(buffers: readonly GPUBuffer[]): void {
    const gone = new Set(buffers.filter((b) => this.liveBuffers.has(b)));
    if (gone.size === 0) return;
    for (const [key, entry] of this.bindGroupBuffers) {
      if (entry.some((b) => gone.has(b))) {
        this.bindGroups.delete(key);
        this.bindGroupBuffers.delete(key);
      }
    }
    for (const buffer of gone) {
      this.liveBuffers.delete(buffer);
      this.allocatedBytes -= buffer.size;
      buffer.destroy();
    }
  }

  private bindGroup(spec: KernelSpec, pipeline: GPUComputePipeline, bindings: readonly Binding[], shapes: string) {
    const ids = bindings.map((b) => (b === null ? '-' : b instanceof Tensor ? `t${b.id}` : `b${bufferId(b)}`)).join(',');
    const key = `${pipelineKey(spec)}|${ids}`;
    let group = this.bindGroups.get(key);
    if (group) return group;
    this.device.pushErrorScope('validation');
    group = this.device.createBindGroup({
      label: `${spec.family}.${spec.entryPoint}(${shapes})`,
      layout: pipeline.getBindGroupLayout(0),
      entries: bindings.flatMap((b, binding) =>
        b === null ? [] : [{ binding, resource: { buffer: b instanceof Tensor ? b.buffer : b } }],
      ),
    });
    this.trackErrors(`${spec.family}.${spec.entryPoint}`, shapes);
    this.bindGroups.set(key, group);
    this.bindGroupBuffers.set(
      key,
      bindings.flatMap((b) => (b === null ? [] : [b instanceof Tensor ? b.buffer : b])),
    );
    return group;
  }

  private trackErrors(kernel: string, shapes: string): void {
    this.pendingErrors.push(
      this.device.popErrorScope().then((error) => (error ? new GpuKernelError(kernel, shapes, error.message) : null)),
    );
  }

  private async throwPendingErrors(): Promise<void> {
    const pending = this.pendingErrors.splice(0);
    for (const error of await Promise.all(pending)) if (error) throw error;
  }

  private assertAlive(): void {
    if (this.released && !this.lostInfo) {
      throw new DeviceLostError('This GPU context was destroyed (its device is released); acquire a new one.');
    }
    if (this.lostInfo) {
      throw new DeviceLostError(`The GPU device was lost (${this.lostInfo.reason}: ${this.lostInfo.message}); reload the model.`);
    }
  }

  private takeStaging(bytes: number): GPUBuffer {
    const pool = this.stagingBuffers.get(bytes);
    const reused = pool?.pop();
    if (reused) return reused;
    return this.device.createBuffer({
      label: `staging ${bytes}`,
      size: bytes,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
  }

  private returnStaging(bytes: number, buffer: GPUBuffer): void {
    const pool = this.stagingBuffers.get(bytes) ?? [];
    pool.push(buffer);
    this.stagingBuffers.set(bytes, pool);
  }
}

const bufferIds = new WeakMap<GPUBuffer, number>();

let nextBufferId = 1;

function bufferId(buffer: GPUBuffer): number {
  let id = bufferIds.get(buffer);
  if (id === undefined) {
    id = nextBufferId++;
    bufferIds.set(buffer, id);
  }
  return id;
}

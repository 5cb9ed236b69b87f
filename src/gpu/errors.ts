// Errors the GPU layer raises: each says what failed, where (kernel, shapes, limit) and what to do.
import { formatBytes } from '../util/format-bytes.ts';

/** No WebGPU implementation or adapter could be found. */
export class NoWebGpuError extends Error {
  override name = 'NoWebGpuError';
}

/** A kernel's pipeline, bind group or dispatch failed GPU validation. */
export class GpuKernelError extends Error {
  override name = 'GpuKernelError';
  constructor(
    readonly kernel: string,
    readonly shapes: string,
    gpuMessage: string,
  ) {
    super(`GPU kernel "${kernel}" (${shapes}) failed: ${gpuMessage}`);
  }
}

/** A requested allocation exceeds the device's limits; raised before anything is allocated. */
export class GpuLimitError extends Error {
  override name = 'GpuLimitError';
  constructor(
    readonly what: string,
    readonly bytes: number,
    readonly limitName: string,
    readonly limit: number,
    advice = 'use a smaller batch, sequence length or model.',
  ) {
    super(`${what} needs ${formatBytes(bytes)}, over the device's ${limitName} of ${formatBytes(limit)}; ${advice}`);
  }
}

/** The device could not allocate a buffer: what was being built, the bytes it asked for and what was held then. */
export class GpuOutOfMemoryError extends Error {
  override name = 'GpuOutOfMemoryError';
  constructor(
    readonly what: string,
    readonly bytesAsked: number,
    readonly bytesHeld: number,
    gpuMessage: string,
  ) {
    super(
      `the GPU ran out of memory building ${what} (${formatBytes(bytesAsked)} asked for, ${formatBytes(bytesHeld)} held in all): ${gpuMessage}`,
    );
  }
}

/** The GPU device was lost (driver reset, tab backgrounded too long, out of memory). */
export class DeviceLostError extends Error {
  override name = 'DeviceLostError';
}

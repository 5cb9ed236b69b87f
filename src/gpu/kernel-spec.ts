// What a kernel dispatch is made of, free of any device: a family's WGSL with the shared prelude appended, the
// pipeline cache key, and the dispatch arithmetic (f32 words for uniforms, folded 1-D grids).
import prelude from '../../shaders/prelude.wgsl?raw';

/** A compute entry point of one WGSL family, specialised by override constants. */
export interface KernelSpec {
  /** Shader family, e.g. "matmul"; names the kernel in errors and caches. */
  family: string;
  /** The family's WGSL (shaders/<family>.wgsl); the pipeline compiles it with the shared prelude appended. */
  source: string;
  entryPoint: string;
  constants?: Record<string, number>;
}

/**
 * The WGSL a family compiles to: its own source, then the shared prelude (shaders/prelude.wgsl). Appended rather than
 * prepended, so that line numbers in compile errors are those of the family's file.
 */
export function shaderCode(source: string): string {
  return `${source}\n// ---- shaders/prelude.wgsl ----\n${prelude}`;
}

/** The cache key of a pipeline: family, entry point and override constants (sorted). */
export function pipelineKey(spec: KernelSpec): string {
  const constants = spec.constants
    ? Object.entries(spec.constants)
        .sort()
        .map(([k, v]) => `${k}=${v}`)
        .join(',')
    : '';
  return `${spec.family}.${spec.entryPoint}{${constants}}`;
}

/** The bit pattern of an f32, for a float field in a uniform written as u32 words (read with bitcast<f32>). */
export function f32Bits(value: number): number {
  F32_SCRATCH[0] = value;
  return U32_VIEW[0];
}
const F32_SCRATCH = new Float32Array(1);
const U32_VIEW = new Uint32Array(F32_SCRATCH.buffer);

/**
 * Workgroup counts covering `n` invocations of `workgroupSize`, folded into y past the device's per-dimension limit
 * (maxComputeWorkgroupsPerDimension, passed in: no literal; the shaders unfold it with num_workgroups).
 */
export function grid1d(n: number, workgroupSize: number, maxPerDimension: number): [number, number] {
  const groups = Math.ceil(n / workgroupSize);
  if (groups <= maxPerDimension) return [groups, 1];
  const y = Math.ceil(groups / maxPerDimension);
  return [Math.ceil(groups / y), y];
}

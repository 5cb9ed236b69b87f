// Shared WGSL prelude: the WORKGROUP override, grid-index helpers and fixed-order workgroup tree reductions.
// GpuContext.pipeline (src/gpu/context.ts) appends this text to every family's source, once, in one place.
//
// WGSL has no include and no generics, so the prelude is plain text: module-scope declarations may come in any
// order, so a family uses these names as if it had declared them, and appending (not prepending) keeps the line
// numbers of a compile error those of shaders/<family>.wgsl. Only what an entry point uses reaches its pipeline:
// a workgroup array below costs nothing to a kernel that never calls its reduction.

/**
 * Invocations per workgroup of a family's 1-D kernels, a power of two for the reductions below. Every wrapper sets
 * it (the default only serves families that never use it: matmul and splade_head have their own sizes).
 */
override WORKGROUP: u32 = 64u;

// ---------------------------------------------------------------------------------------------------------------
// Grid indices. Host side, grid1d (src/gpu/context.ts) folds a long 1-D dispatch into x and y past the per-dimension
// workgroup limit; these undo the fold.

/** Linear index of a workgroup in a grid folded into x and y (one row, or one item, per workgroup). */
fn workgroup_index(group: vec3u, groups: vec3u) -> u32 {
  return group.x + group.y * groups.x;
}

/** Linear index of an invocation of a @workgroup_size(WORKGROUP) kernel over a grid folded into x and y. */
fn global_index(id: vec3u, groups: vec3u) -> u32 {
  return id.x + id.y * groups.x * WORKGROUP;
}

// ---------------------------------------------------------------------------------------------------------------
// Workgroup reductions. Call from uniform control flow with every lane of a @workgroup_size(WORKGROUP) workgroup;
// each lane passes its partial value and gets the total. The tree is fixed (strides WORKGROUP/2, WORKGROUP/4, ..., 1;
// lane i adds lane i + stride), so a result repeats bit for bit from run to run. The closing barrier lets a kernel
// call them back to back on the same scratch.

var<workgroup> reduce_f32: array<f32, WORKGROUP>;
var<workgroup> reduce_vec2f: array<vec2f, WORKGROUP>;
var<workgroup> reduce_u32: array<u32, WORKGROUP>;

/** Sum of `value` over the workgroup. */
fn workgroup_sum(lane: u32, value: f32) -> f32 {
  reduce_f32[lane] = value;
  workgroupBarrier();
  for (var stride = WORKGROUP / 2u; stride > 0u; stride /= 2u) {
    if (lane < stride) { reduce_f32[lane] += reduce_f32[lane + stride]; }
    workgroupBarrier();
  }
  let total = reduce_f32[0];
  workgroupBarrier();
  return total;
}

/** Maximum of `value` over the workgroup. */
fn workgroup_max(lane: u32, value: f32) -> f32 {
  reduce_f32[lane] = value;
  workgroupBarrier();
  for (var stride = WORKGROUP / 2u; stride > 0u; stride /= 2u) {
    if (lane < stride) { reduce_f32[lane] = max(reduce_f32[lane], reduce_f32[lane + stride]); }
    workgroupBarrier();
  }
  let total = reduce_f32[0];
  workgroupBarrier();
  return total;
}

/** Two sums at once (component-wise), in one pass of barriers. */
fn workgroup_sum2(lane: u32, value: vec2f) -> vec2f {
  reduce_vec2f[lane] = value;
  workgroupBarrier();
  for (var stride = WORKGROUP / 2u; stride > 0u; stride /= 2u) {
    if (lane < stride) { reduce_vec2f[lane] += reduce_vec2f[lane + stride]; }
    workgroupBarrier();
  }
  let total = reduce_vec2f[0];
  workgroupBarrier();
  return total;
}

/** Integer sum (a count) over the workgroup. */
fn workgroup_sum_u32(lane: u32, value: u32) -> u32 {
  reduce_u32[lane] = value;
  workgroupBarrier();
  for (var stride = WORKGROUP / 2u; stride > 0u; stride /= 2u) {
    if (lane < stride) { reduce_u32[lane] += reduce_u32[lane + stride]; }
    workgroupBarrier();
  }
  let total = reduce_u32[0];
  workgroupBarrier();
  return total;
}

// ---------------------------------------------------------------------------------------------------------------
// Non-finite values. WGSL has no isNan/isInf, and a compiler may assume floats are never NaN, so test the bits: an
// f32 is Inf or NaN exactly when its exponent field is all ones. Read the values as u32 (bind the f32 buffer to an
// array<u32>), so that no float operation is ever involved.

/** True when the f32 whose bits are `bits` is +-Inf or NaN. */
fn is_non_finite_bits(bits: u32) -> bool {
  return (bits & 0x7f800000u) == 0x7f800000u;
}

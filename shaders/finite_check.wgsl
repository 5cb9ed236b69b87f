// Sticky non-finite flags: sets bits of a u32 flag buffer when a checked tensor holds an Inf or a NaN (loss parts,
// gradients, parameters after the optimiser), and keeps the first step that set any; read back in one small copy.
//
// flags word 0 holds the lowest step that found a non-finite value (atomicMin; 0xffffffff: none yet); bit b of the
// rest is word 1 + b / 32, bit b % 32. A check over a whole tensor owns one bit; a check of a few named scalars (the
// loss parts) gives element i the bit `bit + i`. Bits are only ever set (atomicOr), so the result is the same
// whatever order the invocations run in.

struct Params {
  n: u32,            // elements of `values`
  bit: u32,          // this check's bit (its first bit, per element)
  per_element: u32,  // 1: element i sets bit + i; 0: any element sets bit
  _pad: u32,
}

struct Step {
  index: u32,        // the training step being checked
}

// WORKGROUP (shaders/prelude.wgsl): invocations per workgroup. Each invocation walks the tensor with a stride of the
// whole grid (so neighbouring invocations read neighbouring words) and raises its flag at most once: no workgroup
// reduction and no barrier, and atomics only where a value is bad.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<uniform> step: Step;
@group(0) @binding(2) var<storage, read> values: array<u32>;            // (n) f32 bits, read as words
@group(0) @binding(3) var<storage, read_write> flags: array<atomic<u32>>; // (1 + words)

fn raise(bit: u32) {
  atomicOr(&flags[1u + bit / 32u], 1u << (bit % 32u));
  atomicMin(&flags[0], step.index);
}

@compute @workgroup_size(WORKGROUP)
fn finite_check(
  @builtin(global_invocation_id) id: vec3u,
  @builtin(num_workgroups) groups: vec3u,
) {
  let stride = groups.x * groups.y * WORKGROUP;
  var bad = false;
  for (var i = global_index(id, groups); i < params.n; i += stride) {
    if (is_non_finite_bits(values[i])) {
      if (params.per_element == 1u) { raise(params.bit + i); }
      bad = true;
    }
  }
  if (bad && params.per_element == 0u) { raise(params.bit); }
}

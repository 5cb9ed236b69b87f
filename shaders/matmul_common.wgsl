// Shared by the matmul families (shaders/matmul.wgsl and shaders/matmul_vec4.wgsl; each appends this file, so that a
// compile error's line numbers are those of the family's own file): the parameters, C and the bias, the constants
// every variant is built with, and storing a 4x4 block of C.

struct Params {
  m: u32,
  n: u32,
  k: u32,
  // This dispatch's first workgroup row (a product split under a per-dispatch work budget runs in several pieces)
  wg_y0: u32,
  // Elements between consecutive batch items of each operand; 0 broadcasts one matrix to every batch item.
  stride_a: u32,
  stride_b: u32,
  stride_c: u32,
  // ...and its first batch item
  z0: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;  // (batch, M, N)
@group(0) @binding(4) var<storage, read> bias: array<f32>;     // (N)

override TRANSPOSE_A: bool = false;
override TRANSPOSE_B: bool = false;
/** C += result instead of C = result (gradients summed over calls; zeroing C is the caller's step). */
override ACCUMULATE: bool = false;
/** Workgroup size; each invocation computes 4x4 outputs. */
override WG_X: u32 = 8u;
override WG_Y: u32 = 8u;

const BLOCK = 4u;

/** Writes (or adds) the in-bounds part of a 4x4 block, plus `bias_row` on every row. */
fn store(row0: u32, col0: u32, batch: u32, acc: array<vec4f, 4>, bias_row: vec4f) {
  let base_c = batch * params.stride_c;
  for (var i = 0u; i < BLOCK; i++) {
    let row = row0 + i;
    if (row >= params.m) { break; }
    let values = acc[i] + bias_row;
    for (var j = 0u; j < BLOCK; j++) {
      let col = col0 + j;
      if (col >= params.n) { break; }
      let index = base_c + row * params.n + col;
      if (ACCUMULATE) {
        c[index] += values[j];
      } else {
        c[index] = values[j];
      }
    }
  }
}

/** bias[col0..col0+4], clamped at the edge (clamped lanes are never stored). */
fn bias_at(col0: u32) -> vec4f {
  let cols = min(vec4u(col0) + vec4u(0u, 1u, 2u, 3u), vec4u(params.n - 1u));
  return vec4f(bias[cols.x], bias[cols.y], bias[cols.z], bias[cols.w]);
}

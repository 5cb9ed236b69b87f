// Matmul with vec4 loads: the register-blocked variant of shaders/matmul.wgsl reading A and B four floats at a time,
// when K, the batch strides of A and B and each operand's contiguous dim are multiples of 4 (the host checks). Its own
// module, so that A and B are bound as vec4 arrays only here (never aliased with the f32 view of matmul.wgsl).
// Parameters, C, bias, the shared constants and `store`: shaders/matmul_common.wgsl, appended by the host.

@group(0) @binding(1) var<storage, read> a4: array<vec4f>;   // (batch, M, K), or (batch, K, M) when TRANSPOSE_A
@group(0) @binding(2) var<storage, read> b4: array<vec4f>;   // (batch, K, N), or (batch, N, K) when TRANSPOSE_B

/** As block_registers with one vec4 load per row of 4 floats. Needs K, the strides of A and B and the contiguous dim
 *  of each operand (N for B in nn/tn, M for A in tn) to be multiples of 4; the host checks this. */
fn block_vec4(row0: u32, col0: u32, batch: u32) -> array<vec4f, 4> {
  let base_a = batch * (params.stride_a / 4u);
  let base_b = batch * (params.stride_b / 4u);
  let rows = min(vec4u(row0) + vec4u(0u, 1u, 2u, 3u), vec4u(params.m - 1u));
  let cols = min(vec4u(col0) + vec4u(0u, 1u, 2u, 3u), vec4u(params.n - 1u));
  let m4 = params.m / 4u;
  let n4 = params.n / 4u;
  let k4 = params.k / 4u;
  // acc column i = C[row_i, col0..col0+4]; per step of 4 along K, acc += b_slab · a_slab where
  // a_slab column i = op(A)[row_i, k..k+4] and b_slab column j = op(B)[k+j, col0..col0+4].
  var acc = mat4x4f();
  for (var kq = 0u; kq < k4; kq++) {
    let k = 4u * kq;
    var a_slab: mat4x4f;
    if (TRANSPOSE_A) {
      let r = base_a + row0 / 4u;
      a_slab = transpose(mat4x4f(a4[r + k * m4], a4[r + (k + 1u) * m4], a4[r + (k + 2u) * m4], a4[r + (k + 3u) * m4]));
    } else {
      a_slab = mat4x4f(a4[base_a + rows.x * k4 + kq], a4[base_a + rows.y * k4 + kq], a4[base_a + rows.z * k4 + kq], a4[base_a + rows.w * k4 + kq]);
    }
    var b_slab: mat4x4f;
    if (TRANSPOSE_B) {
      b_slab = transpose(mat4x4f(b4[base_b + cols.x * k4 + kq], b4[base_b + cols.y * k4 + kq], b4[base_b + cols.z * k4 + kq], b4[base_b + cols.w * k4 + kq]));
    } else {
      let c = base_b + col0 / 4u;
      b_slab = mat4x4f(b4[c + k * n4], b4[c + (k + 1u) * n4], b4[c + (k + 2u) * n4], b4[c + (k + 3u) * n4]);
    }
    acc += b_slab * a_slab;
  }
  return array<vec4f, 4>(acc[0], acc[1], acc[2], acc[3]);
}

@compute @workgroup_size(WG_X, WG_Y, 1)
fn matmul_vec4(@builtin(global_invocation_id) gid: vec3u) {
  let row0 = (gid.y + params.wg_y0 * WG_Y) * BLOCK;
  let col0 = gid.x * BLOCK;
  let z = gid.z + params.z0;
  if (row0 >= params.m || col0 >= params.n) { return; }
  store(row0, col0, z, block_vec4(row0, col0, z), vec4f(0.0));
}

@compute @workgroup_size(WG_X, WG_Y, 1)
fn matmul_vec4_bias(@builtin(global_invocation_id) gid: vec3u) {
  let row0 = (gid.y + params.wg_y0 * WG_Y) * BLOCK;
  let col0 = gid.x * BLOCK;
  let z = gid.z + params.z0;
  if (row0 >= params.m || col0 >= params.n) { return; }
  store(row0, col0, z, block_vec4(row0, col0, z), bias_at(col0));
}

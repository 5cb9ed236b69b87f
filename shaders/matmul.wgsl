// Matmul family: C (+)= op(A)·op(B) (+ bias along N), row-major fp32, batched on workgroup z; register-blocked or tiled.
//
// op(A) is (M, K): A is stored (M, K), or (K, M) when TRANSPOSE_A. op(B) is (K, N): B is stored (K, N), or (N, K)
// when TRANSPOSE_B. Layouts: nn = (false, false), nt = (false, true), tn = (true, false).
// Every invocation owns a 4x4 block of C (rows 4·y.., columns 4·x..), so a workgroup covers (4·WG_Y) x (4·WG_X) of C
// in both variants and the host's dispatch arithmetic is the same for each:
//   matmul_registers*: no shared memory; loads go straight to storage (the fast choice on CPU devices such as SwiftShader).
//   matmul_vec4*:      the same with vec4 loads, when K and each operand's contiguous dim are multiples of 4.
//   matmul_tiled*:     the workgroup stages (4·WG_Y) x TILE_K of A and TILE_K x (4·WG_X) of B in workgroup memory.
// The *_bias entry points add bias[n] to every row; the others leave binding 4 out of their layout.

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
@group(0) @binding(1) var<storage, read> a: array<f32>;        // (batch, M, K), or (batch, K, M) when TRANSPOSE_A
@group(0) @binding(2) var<storage, read> b: array<f32>;        // (batch, K, N), or (batch, N, K) when TRANSPOSE_B
@group(0) @binding(3) var<storage, read_write> c: array<f32>;  // (batch, M, N)
@group(0) @binding(4) var<storage, read> bias: array<f32>;     // (N)
// The same buffers seen as vec4s, for the matmul_vec4* entry points (never used with a and b in one entry point).
@group(0) @binding(1) var<storage, read> a4: array<vec4f>;
@group(0) @binding(2) var<storage, read> b4: array<vec4f>;

override TRANSPOSE_A: bool = false;
override TRANSPOSE_B: bool = false;
/** C += result instead of C = result (gradients summed over calls; zeroing C is the caller's step). */
override ACCUMULATE: bool = false;
/** Workgroup size; each invocation computes 4x4 outputs. */
override WG_X: u32 = 8u;
override WG_Y: u32 = 8u;
/** Depth of the K slice staged per step by the tiled variant. */
override TILE_K: u32 = 8u;

const BLOCK = 4u;

/** op(A)[row, kk] of the batch item starting at `base`. */
fn load_a(base: u32, row: u32, kk: u32) -> f32 {
  if (TRANSPOSE_A) {
    return a[base + kk * params.m + row];
  }
  return a[base + row * params.k + kk];
}

/** op(B)[kk, col] of the batch item starting at `base`. */
fn load_b(base: u32, kk: u32, col: u32) -> f32 {
  if (TRANSPOSE_B) {
    return b[base + col * params.k + kk];
  }
  return b[base + kk * params.n + col];
}

/** The 4x4 block at (row0, col0), reading storage directly. Rows and columns past the edge are clamped so that loads
 *  stay in bounds without branches; their results are never stored. */
fn block_registers(row0: u32, col0: u32, batch: u32) -> array<vec4f, 4> {
  let base_a = batch * params.stride_a;
  let base_b = batch * params.stride_b;
  let rows = min(vec4u(row0) + vec4u(0u, 1u, 2u, 3u), vec4u(params.m - 1u));
  let cols = min(vec4u(col0) + vec4u(0u, 1u, 2u, 3u), vec4u(params.n - 1u));
  var acc: array<vec4f, 4>;
  for (var kk = 0u; kk < params.k; kk++) {
    let av = vec4f(load_a(base_a, rows.x, kk), load_a(base_a, rows.y, kk), load_a(base_a, rows.z, kk), load_a(base_a, rows.w, kk));
    let bv = vec4f(load_b(base_b, kk, cols.x), load_b(base_b, kk, cols.y), load_b(base_b, kk, cols.z), load_b(base_b, kk, cols.w));
    acc[0] += av.x * bv;
    acc[1] += av.y * bv;
    acc[2] += av.z * bv;
    acc[3] += av.w * bv;
  }
  return acc;
}

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

// Staged slices, k-major: tile_a[kk][row in tile], tile_b[kk][column in tile]. Zero past the matrix edges.
var<workgroup> tile_a: array<f32, TILE_K * BLOCK * WG_Y>;
var<workgroup> tile_b: array<f32, TILE_K * BLOCK * WG_X>;

/** The 4x4 block at (row0, col0) of the workgroup whose tile starts at (tile_row, tile_col), through workgroup memory. */
fn block_tiled(tile_row: u32, tile_col: u32, local: vec3u, batch: u32) -> array<vec4f, 4> {
  let base_a = batch * params.stride_a;
  let base_b = batch * params.stride_b;
  let tile_m = BLOCK * WG_Y;
  let tile_n = BLOCK * WG_X;
  let threads = WG_X * WG_Y;
  let thread = local.y * WG_X + local.x;
  var acc: array<vec4f, 4>;
  for (var k0 = 0u; k0 < params.k; k0 += TILE_K) {
    for (var i = thread; i < TILE_K * tile_m; i += threads) {
      // With TRANSPOSE_A consecutive threads walk rows (contiguous in A); otherwise they walk k.
      var kk: u32;
      var r: u32;
      if (TRANSPOSE_A) { kk = i / tile_m; r = i % tile_m; } else { kk = i % TILE_K; r = i / TILE_K; }
      let row = tile_row + r;
      var value = 0.0;
      if (row < params.m && k0 + kk < params.k) { value = load_a(base_a, row, k0 + kk); }
      tile_a[kk * tile_m + r] = value;
    }
    for (var i = thread; i < TILE_K * tile_n; i += threads) {
      var kk: u32;
      var cc: u32;
      if (TRANSPOSE_B) { kk = i % TILE_K; cc = i / TILE_K; } else { kk = i / tile_n; cc = i % tile_n; }
      let col = tile_col + cc;
      var value = 0.0;
      if (col < params.n && k0 + kk < params.k) { value = load_b(base_b, k0 + kk, col); }
      tile_b[kk * tile_n + cc] = value;
    }
    workgroupBarrier();
    for (var kk = 0u; kk < TILE_K; kk++) {
      let ra = kk * tile_m + local.y * BLOCK;
      let rb = kk * tile_n + local.x * BLOCK;
      let av = vec4f(tile_a[ra], tile_a[ra + 1u], tile_a[ra + 2u], tile_a[ra + 3u]);
      let bv = vec4f(tile_b[rb], tile_b[rb + 1u], tile_b[rb + 2u], tile_b[rb + 3u]);
      acc[0] += av.x * bv;
      acc[1] += av.y * bv;
      acc[2] += av.z * bv;
      acc[3] += av.w * bv;
    }
    workgroupBarrier();
  }
  return acc;
}

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

@compute @workgroup_size(WG_X, WG_Y, 1)
fn matmul_registers(@builtin(global_invocation_id) gid: vec3u) {
  let row0 = (gid.y + params.wg_y0 * WG_Y) * BLOCK;
  let col0 = gid.x * BLOCK;
  let z = gid.z + params.z0;
  if (row0 >= params.m || col0 >= params.n) { return; }
  store(row0, col0, z, block_registers(row0, col0, z), vec4f(0.0));
}

@compute @workgroup_size(WG_X, WG_Y, 1)
fn matmul_registers_bias(@builtin(global_invocation_id) gid: vec3u) {
  let row0 = (gid.y + params.wg_y0 * WG_Y) * BLOCK;
  let col0 = gid.x * BLOCK;
  let z = gid.z + params.z0;
  if (row0 >= params.m || col0 >= params.n) { return; }
  store(row0, col0, z, block_registers(row0, col0, z), bias_at(col0));
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

@compute @workgroup_size(WG_X, WG_Y, 1)
fn matmul_tiled(@builtin(workgroup_id) group: vec3u, @builtin(local_invocation_id) local: vec3u) {
  let gy = group.y + params.wg_y0;
  let z = group.z + params.z0;
  let row0 = (gy * WG_Y + local.y) * BLOCK;
  let col0 = (group.x * WG_X + local.x) * BLOCK;
  let acc = block_tiled(gy * WG_Y * BLOCK, group.x * WG_X * BLOCK, local, z);
  if (row0 < params.m && col0 < params.n) { store(row0, col0, z, acc, vec4f(0.0)); }
}

@compute @workgroup_size(WG_X, WG_Y, 1)
fn matmul_tiled_bias(@builtin(workgroup_id) group: vec3u, @builtin(local_invocation_id) local: vec3u) {
  let gy = group.y + params.wg_y0;
  let z = group.z + params.z0;
  let row0 = (gy * WG_Y + local.y) * BLOCK;
  let col0 = (group.x * WG_X + local.x) * BLOCK;
  let acc = block_tiled(gy * WG_Y * BLOCK, group.x * WG_X * BLOCK, local, z);
  if (row0 < params.m && col0 < params.n) { store(row0, col0, z, acc, bias_at(col0)); }
}

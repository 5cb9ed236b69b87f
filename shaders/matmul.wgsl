// Matmul family: C (+)= op(A)·op(B) (+ bias along N), row-major fp32, batched on workgroup z; register-blocked or tiled.
//
// op(A) is (M, K): A is stored (M, K), or (K, M) when TRANSPOSE_A. op(B) is (K, N): B is stored (K, N), or (N, K)
// when TRANSPOSE_B. Layouts: nn = (false, false), nt = (false, true), tn = (true, false).
// Every invocation owns a 4x4 block of C (rows 4·y.., columns 4·x..), so a workgroup covers (4·WG_Y) x (4·WG_X) of C
// in both variants and the host's dispatch arithmetic is the same for each:
//   matmul_registers*: no shared memory; loads go straight to storage (the fast choice on CPU devices such as SwiftShader).
//   (the same with vec4 loads: shaders/matmul_vec4.wgsl)
//   matmul_tiled*:     the workgroup stages (4·WG_Y) x TILE_K of A and TILE_K x (4·WG_X) of B in workgroup memory.
// The *_bias entry points add bias[n] to every row; the others leave binding 4 out of their layout.
// Parameters, C, bias, the shared constants and `store`: shaders/matmul_common.wgsl, appended by the host.

@group(0) @binding(1) var<storage, read> a: array<f32>;        // (batch, M, K), or (batch, K, M) when TRANSPOSE_A
@group(0) @binding(2) var<storage, read> b: array<f32>;        // (batch, K, N), or (batch, N, K) when TRANSPOSE_B

/** Depth of the K slice staged per step by the tiled variant. */
override TILE_K: u32 = 8u;

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

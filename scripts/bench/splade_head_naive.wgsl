// Naive unfused SPLADE head, the benchmark's baseline only (scripts/bench/splade-head.ts): appended to
// shaders/splade_head.wgsl (its dims uniform, log1p_pos and NO_TOKEN), compiled as its own family. It materialises the
// logits (B, T, V) with the fused kernel's 4x4 register blocking, then a second pass applies log1p∘ReLU and the masked
// max over tokens.

@group(0) @binding(1) var<storage, read> n_hidden: array<vec4f>;       // (B, T, d/4)
@group(0) @binding(2) var<storage, read> n_weight: array<vec4f>;       // (V, d/4)
@group(0) @binding(3) var<storage, read> n_bias: array<f32>;           // (V)
@group(0) @binding(4) var<storage, read_write> n_logits: array<f32>;   // (B, T, V)

@compute @workgroup_size(FWD_WG)
fn naive_logits(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let rows = dims.B * dims.T;
  let D4 = dims.D / 4u;
  let V = dims.V;
  // token blocks along x, so that consecutive workgroups reuse one tile of weight rows from cache
  let vbase = wid.y * FWD_WG * 4u + lid;
  let vids = vec4u(vbase, vbase + FWD_WG, vbase + 2u * FWD_WG, vbase + 3u * FWD_WG);
  let vc = min(vids, vec4u(V - 1u)) * D4;
  let r0 = wid.x * 4u;
  let rs = min(vec4u(r0, r0 + 1u, r0 + 2u, r0 + 3u), vec4u(rows - 1u)) * D4;
  // the fused kernel's inner loop, verbatim
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  for (var k = 0u; k < D4; k++) {
    let a = n_weight[vc.x + k];
    let bb = n_weight[vc.y + k];
    let c = n_weight[vc.z + k];
    let e = n_weight[vc.w + k];
    let x0 = n_hidden[rs.x + k];
    let x1 = n_hidden[rs.y + k];
    let x2 = n_hidden[rs.z + k];
    let x3 = n_hidden[rs.w + k];
    acc0 += vec4f(dot(x0, a), dot(x0, bb), dot(x0, c), dot(x0, e));
    acc1 += vec4f(dot(x1, a), dot(x1, bb), dot(x1, c), dot(x1, e));
    acc2 += vec4f(dot(x2, a), dot(x2, bb), dot(x2, c), dot(x2, e));
    acc3 += vec4f(dot(x3, a), dot(x3, bb), dot(x3, c), dot(x3, e));
  }
  let bias = vec4f(n_bias[vc.x / D4], n_bias[vc.y / D4], n_bias[vc.z / D4], n_bias[vc.w / D4]);
  let out = mat4x4f(acc0 + bias, acc1 + bias, acc2 + bias, acc3 + bias); // column i = token r0 + i
  for (var i = 0u; i < 4u; i++) {
    if (r0 + i < rows) {
      for (var j = 0u; j < 4u; j++) {
        if (vids[j] < V) { n_logits[(r0 + i) * V + vids[j]] = out[i][j]; }
      }
    }
  }
}

@group(0) @binding(1) var<storage, read> p_logits: array<f32>;           // (B, T, V)
@group(0) @binding(2) var<storage, read> p_mask: array<u32>;             // (B, T)
@group(0) @binding(3) var<storage, read_write> p_pooled: array<f32>;     // (B, V)
@group(0) @binding(4) var<storage, read_write> p_argmax: array<u32>;     // (B, V)

@compute @workgroup_size(FWD_WG)
fn naive_pool(@builtin(global_invocation_id) gid: vec3u) {
  let v = gid.x;
  let b = gid.y;
  let V = dims.V;
  if (v >= V) { return; }
  var best = 0.0;
  var best_t = NO_TOKEN;
  for (var t = 0u; t < dims.T; t++) {
    let a = log1p_pos(max(p_logits[(b * dims.T + t) * V + v], 0.0));
    if (p_mask[b * dims.T + t] != 0u && a > best) {
      best = a;
      best_t = t;
    }
  }
  p_pooled[b * V + v] = best;
  p_argmax[b * V + v] = best_t;
}

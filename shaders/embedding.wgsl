// Embedding lookup: forward out (+)= table[ids], and its backward as a deterministic GATHER (no float atomics).
//
// The host sorts the batch's ids once per step (src/kernels/embedding.ts, EmbeddingGatherPlan): each table row that
// occurs gets the list of flat positions that looked it up (CSR: rows, offsets, positions, positions ascending).
// embedding_backward runs one invocation per (plan entry u, column c) and adds Σ over its positions, in that fixed
// order, of dout[position, c] into dtable[rows[u], c]. Plan entries past the distinct-row count hold NO_ROW.
// A table too large for one binding is bound one row range (part) at a time: forward adds its rows (zero for ids
// elsewhere), backward updates only the rows it holds. Each id lies in one part, so the sums are exact.

struct Params {
  N: u32,         // looked-up positions (B·T)
  d: u32,         // row width
  rows: u32,      // table rows
  row0: u32,      // first table row of the bound part
  part_rows: u32, // rows of the bound part
  _pad0: u32,
  _pad1: u32,
  _pad2: u32,
}

// WORKGROUP (shaders/prelude.wgsl): invocations per workgroup.
/** forward adds into out instead of overwriting it (position and token-type tables after the word table). */
override ACCUMULATE: bool = false;

const NO_ROW = 0xffffffffu;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> ids: array<u32>;               // (N) row of each position
@group(0) @binding(2) var<storage, read> table: array<f32>;             // (part_rows, d): rows row0.. of the table
@group(0) @binding(3) var<storage, read_write> out: array<f32>;         // (N, d)
@group(0) @binding(4) var<storage, read> plan_rows: array<u32>;         // (N) distinct rows, then NO_ROW
@group(0) @binding(5) var<storage, read> plan_offsets: array<u32>;      // (N + 1) CSR offsets into plan_positions
@group(0) @binding(6) var<storage, read> plan_positions: array<u32>;    // (N) positions grouped by row, ascending
@group(0) @binding(7) var<storage, read> dout: array<f32>;              // (N, d)
@group(0) @binding(8) var<storage, read_write> dtable: array<f32>;      // (part_rows, d), accumulated into

@compute @workgroup_size(WORKGROUP)
fn embedding_forward(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let e = global_index(id, groups);
  let d = params.d;
  if (e >= params.N * d) { return; }
  let n = e / d;
  let c = e - n * d;
  let row = min(ids[n], params.rows - 1u);  // the host validates ids; the clamp only keeps reads in bounds
  var value = 0.0;
  if (row >= params.row0 && row - params.row0 < params.part_rows) {
    value = table[(row - params.row0) * d + c];
  }
  if (ACCUMULATE) {
    out[e] += value;
  } else {
    out[e] = value;
  }
}

@compute @workgroup_size(WORKGROUP)
fn embedding_backward(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let e = global_index(id, groups);
  let d = params.d;
  if (e >= params.N * d) { return; }
  let u = e / d;
  let c = e - u * d;
  let row = plan_rows[u];
  if (row == NO_ROW || row < params.row0 || row - params.row0 >= params.part_rows) { return; }
  var sum = 0.0;
  for (var k = plan_offsets[u]; k < plan_offsets[u + 1u]; k++) {
    sum += dout[plan_positions[k] * d + c];
  }
  dtable[(row - params.row0) * d + c] += sum;
}

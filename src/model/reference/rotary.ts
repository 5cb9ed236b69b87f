// Float64 rotary position embeddings as ModernBERT applies them (rotate_half, non-interleaved) to q and k of a fused qkv.

/** cos and sin of position * inv_freq, each (T, hd/2), with inv_freq[j] = theta^(-2j / hd). */
export interface RopeTable {
  T: number;
  half: number;
  cos: Float64Array;
  sin: Float64Array;
}

export function ropeTable(T: number, headDim: number, theta: number): RopeTable {
  const half = headDim / 2;
  const cos = new Float64Array(T * half);
  const sin = new Float64Array(T * half);
  for (let t = 0; t < T; t++) {
    for (let j = 0; j < half; j++) {
      const angle = t * Math.pow(theta, (-2 * j) / headDim);
      cos[t * half + j] = Math.cos(angle);
      sin[t * half + j] = Math.sin(angle);
    }
  }
  return { T, half, cos, sin };
}

/**
 * out (B, T, 3d) = qkv with q and k of every head rotated: for j < hd/2, with x1 = x[j], x2 = x[j + hd/2],
 * out[j] = x1 cos - x2 sin and out[j + hd/2] = x2 cos + x1 sin (x cos + rotate_half(x) sin); v is copied.
 */
export function ropeForward(out: Float64Array, qkv: Float64Array, table: RopeTable, B: number, T: number, NH: number): void {
  rotate(out, qkv, table, B, T, NH, 1);
}

/** dqkv (B, T, 3d) += the transposed rotation (angle -> -angle) of dout for q and k, and dout itself for v. */
export function ropeBackward(dqkv: Float64Array, dout: Float64Array, table: RopeTable, B: number, T: number, NH: number): void {
  const tmp = new Float64Array(dout.length);
  rotate(tmp, dout, table, B, T, NH, -1);
  for (let i = 0; i < tmp.length; i++) dqkv[i] += tmp[i];
}

function rotate(out: Float64Array, inp: Float64Array, table: RopeTable, B: number, T: number, NH: number, direction: 1 | -1): void {
  const { half, cos, sin } = table;
  const hd = 2 * half;
  const d = NH * hd;
  out.set(inp);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      for (let section = 0; section < 2; section++) {
        for (let h = 0; h < NH; h++) {
          const base = (b * T + t) * 3 * d + section * d + h * hd;
          for (let j = 0; j < half; j++) {
            const c = cos[t * half + j];
            const s = direction * sin[t * half + j];
            const x1 = inp[base + j];
            const x2 = inp[base + half + j];
            out[base + j] = x1 * c - x2 * s;
            out[base + half + j] = x2 * c + x1 * s;
          }
        }
      }
    }
  }
}

// Float64 reference of the attention family (src/kernels/attention.ts): multi-head self-attention on a fused qkv
// (B, T, 3d) with a padding mask on keys, optional sliding window and softmax; rotary position embeddings.
// Masked keys get probability exactly 0 (transformers adds finfo.min, which underflows to the same 0).
// NO_VISIBLE_KEY: a query that sees no key at all (only a padding query in a local layer whose window holds only
// padding, or an all-padding sequence) outputs zeros. transformers' eager path averages every value there and its
// flash path drops padding; no real token ever reads such a row, so the encoder's real outputs are identical.

import { type RopeTable } from '../host/rope-table.ts';

export { ropeInverseFrequencies, ropeTable, type RopeTable } from '../host/rope-table.ts';

export interface AttentionShape {
  B: number;
  T: number;
  NH: number;
  /** Head size; d = NH * hd. */
  hd: number;
}

export interface AttentionMasking {
  /** (B, T): 1 for real tokens, 0 for padding; padded keys are never attended to. */
  mask: ArrayLike<number>;
  /** Local attention: query i sees key j only when |i - j| <= halfWindow (ModernBERT: local_attention // 2). */
  halfWindow: number | null;
}

/** Dropout as a factor per flat index of the tensor it applies to (0: dropped, 1 / (1 - rate): kept), or none. */
export type DropMask = ((index: number) => number) | null;

function allowed(masking: AttentionMasking, b: number, T: number, i: number, j: number): boolean {
  if (!masking.mask[b * T + j]) return false;
  return masking.halfWindow === null || Math.abs(i - j) <= masking.halfWindow;
}

/**
 * out (B, T, d): per head, softmax_j(q_i . k_j / sqrt(hd)) over the allowed keys, times v_j.
 * Writes probs (B, NH, T, T) (0 where not allowed, before any dropout) for the backward pass. `drop`: dropout on the
 * probabilities, by their flat (B, NH, T, T) index.
 */
export function attentionForward(
  out: Float64Array,
  probs: Float64Array,
  qkv: Float64Array,
  shape: AttentionShape,
  masking: AttentionMasking,
  drop: DropMask = null,
): void {
  const { B, T, NH, hd } = shape;
  const d = NH * hd;
  const scale = 1 / Math.sqrt(hd);
  const scores = new Float64Array(T);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < NH; h++) {
      for (let i = 0; i < T; i++) {
        const q = (b * T + i) * 3 * d + h * hd;
        let max = -Infinity;
        for (let j = 0; j < T; j++) {
          if (!allowed(masking, b, T, i, j)) continue;
          const k = (b * T + j) * 3 * d + d + h * hd;
          let s = 0;
          for (let c = 0; c < hd; c++) s += qkv[q + c] * qkv[k + c];
          scores[j] = s * scale;
          if (scores[j] > max) max = scores[j];
        }
        const p = ((b * NH + h) * T + i) * T;
        const o = (b * T + i) * d + h * hd;
        for (let c = 0; c < hd; c++) out[o + c] = 0;
        if (max === -Infinity) {
          probs.fill(0, p, p + T); // see NO_VISIBLE_KEY
          continue;
        }
        let sum = 0;
        for (let j = 0; j < T; j++) {
          probs[p + j] = allowed(masking, b, T, i, j) ? Math.exp(scores[j] - max) : 0;
          sum += probs[p + j];
        }
        for (let j = 0; j < T; j++) {
          probs[p + j] /= sum;
          if (probs[p + j] === 0) continue;
          const v = (b * T + j) * 3 * d + 2 * d + h * hd;
          const weight = drop ? probs[p + j] * drop(p + j) : probs[p + j];
          for (let c = 0; c < hd; c++) out[o + c] += weight * qkv[v + c];
        }
      }
    }
  }
}

/** Accumulates dqkv (B, T, 3d) from dout (B, T, d) using the saved probs (B, NH, T, T), qkv, and forward's `drop`. */
export function attentionBackward(
  dqkv: Float64Array,
  dout: Float64Array,
  probs: Float64Array,
  qkv: Float64Array,
  shape: AttentionShape,
  drop: DropMask = null,
): void {
  const { B, T, NH, hd } = shape;
  const d = NH * hd;
  const scale = 1 / Math.sqrt(hd);
  const dp = new Float64Array(T);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < NH; h++) {
      for (let i = 0; i < T; i++) {
        const p = ((b * NH + h) * T + i) * T;
        const o = (b * T + i) * d + h * hd;
        let weighted = 0;
        for (let j = 0; j < T; j++) {
          if (probs[p + j] === 0) {
            dp[j] = 0;
            continue;
          }
          const v = (b * T + j) * 3 * d + 2 * d + h * hd;
          const factor = drop ? drop(p + j) : 1;
          let s = 0;
          for (let c = 0; c < hd; c++) {
            s += dout[o + c] * qkv[v + c];
            dqkv[v + c] += probs[p + j] * factor * dout[o + c];
          }
          dp[j] = s * factor;
          weighted += probs[p + j] * dp[j];
        }
        const q = (b * T + i) * 3 * d + h * hd;
        for (let j = 0; j < T; j++) {
          if (probs[p + j] === 0) continue;
          const ds = probs[p + j] * (dp[j] - weighted) * scale;
          const k = (b * T + j) * 3 * d + d + h * hd;
          for (let c = 0; c < hd; c++) {
            dqkv[q + c] += ds * qkv[k + c];
            dqkv[k + c] += ds * qkv[q + c];
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Rotary position embeddings as ModernBERT applies them (rotate_half, non-interleaved) to q and k of a fused qkv.

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

function rotate(
  out: Float64Array,
  inp: Float64Array,
  table: RopeTable,
  B: number,
  T: number,
  NH: number,
  direction: 1 | -1,
): void {
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

// Float64 multi-head self-attention on a fused qkv (B, T, 3d): padding mask on keys, optional sliding window, softmax.
// Masked keys get probability exactly 0 (transformers adds finfo.min, which underflows to the same 0).
// NO_VISIBLE_KEY: a query that sees no key at all (only a padding query in a local layer whose window holds only
// padding, or an all-padding sequence) outputs zeros. transformers' eager path averages every value there and its
// flash path drops padding; no real token ever reads such a row, so the encoder's real outputs are identical.

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

function allowed(masking: AttentionMasking, b: number, T: number, i: number, j: number): boolean {
  if (!masking.mask[b * T + j]) return false;
  return masking.halfWindow === null || Math.abs(i - j) <= masking.halfWindow;
}

/**
 * out (B, T, d): per head, softmax_j(q_i . k_j / sqrt(hd)) over the allowed keys, times v_j.
 * Writes probs (B, NH, T, T) (0 where not allowed) for the backward pass.
 */
export function attentionForward(
  out: Float64Array,
  probs: Float64Array,
  qkv: Float64Array,
  shape: AttentionShape,
  masking: AttentionMasking,
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
          for (let c = 0; c < hd; c++) out[o + c] += probs[p + j] * qkv[v + c];
        }
      }
    }
  }
}

/** Accumulates dqkv (B, T, 3d) from dout (B, T, d) using the saved probs (B, NH, T, T) and qkv. */
export function attentionBackward(
  dqkv: Float64Array,
  dout: Float64Array,
  probs: Float64Array,
  qkv: Float64Array,
  shape: AttentionShape,
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
          let s = 0;
          for (let c = 0; c < hd; c++) {
            s += dout[o + c] * qkv[v + c];
            dqkv[v + c] += probs[p + j] * dout[o + c];
          }
          dp[j] = s;
          weighted += probs[p + j] * s;
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

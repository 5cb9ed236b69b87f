// Float64 reference: in-batch contrastive loss with temperature; query i's positive is document column i.

/** L = -1/B Σ_i log softmax(scores[i, :] / tau)[i], scores (B, N) with N ≥ B (positives first, then negatives). */
export function contrastiveLossForward(scores: Float64Array, B: number, N: number, tau: number): number {
  let total = 0;
  for (let i = 0; i < B; i++) {
    const row = scores.subarray(i * N, (i + 1) * N);
    total += logSumExp(row, tau) - row[i] / tau;
  }
  return total / B;
}

/** dscores (B, N) = dloss · (softmax - onehot(i)) / (B · tau). */
export function contrastiveLossBackward(scores: Float64Array, B: number, N: number, tau: number, dloss = 1): Float64Array {
  const dscores = new Float64Array(B * N);
  for (let i = 0; i < B; i++) {
    const row = scores.subarray(i * N, (i + 1) * N);
    const lse = logSumExp(row, tau);
    for (let j = 0; j < N; j++) {
      const p = Math.exp(row[j] / tau - lse);
      dscores[i * N + j] = (dloss * (p - (j === i ? 1 : 0))) / (B * tau);
    }
  }
  return dscores;
}

function logSumExp(row: Float64Array, tau: number): number {
  let max = -Infinity;
  for (const s of row) max = Math.max(max, s / tau);
  let sum = 0;
  for (const s of row) sum += Math.exp(s / tau - max);
  return max + Math.log(sum);
}

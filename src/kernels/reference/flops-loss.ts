// Float64 reference: the FLOPS regulariser Σ_v (mean_i |x_iv|)² over a batch of N vectors of size V.

export function flopsLossForward(vectors: Float64Array, N: number, V: number): number {
  let loss = 0;
  for (let v = 0; v < V; v++) {
    const mean = columnMeanAbs(vectors, N, V, v);
    loss += mean * mean;
  }
  return loss;
}

/** d x_iv = dloss · 2 · mean_v · sign(x_iv) / N (sign(0) = 0). */
export function flopsLossBackward(vectors: Float64Array, N: number, V: number, dloss = 1): Float64Array {
  const dvectors = new Float64Array(N * V);
  for (let v = 0; v < V; v++) {
    const mean = columnMeanAbs(vectors, N, V, v);
    for (let i = 0; i < N; i++) dvectors[i * V + v] = (dloss * 2 * mean * Math.sign(vectors[i * V + v])) / N;
  }
  return dvectors;
}

function columnMeanAbs(vectors: Float64Array, N: number, V: number, v: number): number {
  let sum = 0;
  for (let i = 0; i < N; i++) sum += Math.abs(vectors[i * V + v]);
  return sum / N;
}

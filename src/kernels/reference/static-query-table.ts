// Float64 reference of inference-free SPLADE's trainable query table: query vectors presence · weights, the mean L1
// norm of the batch's query vectors, and the gradients of both with respect to the table.

/** vectors (B, V) = presence (B, V) · weights (V). */
export function staticTableVectors(weights: Float64Array, presence: ArrayLike<number>, B: number): Float64Array {
  const V = weights.length;
  const vectors = new Float64Array(B * V);
  for (let b = 0; b < B; b++) for (let v = 0; v < V; v++) vectors[b * V + v] = presence[b * V + v] * weights[v];
  return vectors;
}

/** The batch's mean L1 norm of its query vectors: Σ_v |w_v| · count_v / B. */
export function staticTableL1(weights: Float64Array, presence: ArrayLike<number>, B: number): number {
  const V = weights.length;
  let sum = 0;
  for (let b = 0; b < B; b++) for (let v = 0; v < V; v++) sum += presence[b * V + v] * Math.abs(weights[v]);
  return sum / B;
}

/**
 * d weights (V) of <vectors, dvectors> + lambda · L1: Σ_b presence · dvectors + lambda · count · sign(w) / B
 * (sign(0) = 0, as torch's abs backward).
 */
export function staticTableBackward(
  weights: Float64Array,
  presence: ArrayLike<number>,
  dvectors: Float64Array,
  B: number,
  lambda: number,
): Float64Array {
  const V = weights.length;
  const dweights = new Float64Array(V);
  for (let b = 0; b < B; b++)
    for (let v = 0; v < V; v++) dweights[v] += presence[b * V + v] * (dvectors[b * V + v] + (lambda * Math.sign(weights[v])) / B);
  return dweights;
}

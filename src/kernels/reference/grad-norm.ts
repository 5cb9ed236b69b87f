// Float64 reference of the update's gradient scale: the mean of summed micro-batch gradients, clipped by global norm.

/**
 * The global L2 norm of the averaged gradient (the summed gradients times 1 / microBatches), and the factor that turns
 * a summed gradient into the one the update uses: 1 / microBatches times min(1, maxNorm / (norm + 1e-6)), as
 * torch.nn.utils.clip_grad_norm_ clips (maxNorm 0: no clipping).
 */
export function gradientScale(
  grads: readonly ArrayLike<number>[],
  maxNorm: number,
  microBatches: number,
): { scale: number; norm: number } {
  let squares = 0;
  for (const g of grads) for (let i = 0; i < g.length; i++) squares += g[i] * g[i];
  const mean = 1 / microBatches;
  const norm = Math.sqrt(squares) * mean;
  const coefficient = maxNorm > 0 ? Math.min(1, maxNorm / (norm + 1e-6)) : 1;
  return { scale: mean * coefficient, norm };
}

// Float64 reference of one plain SGD step (no momentum; weight decay, if any, as torch.optim.SGD applies it), in place.

export function sgdStep(param: Float64Array, dparam: ArrayLike<number>, lr: number, weightDecay: number, gradScale = 1): void {
  for (let i = 0; i < param.length; i++) param[i] -= lr * (dparam[i] * gradScale + weightDecay * param[i]);
}

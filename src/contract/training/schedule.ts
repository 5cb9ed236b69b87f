// The paper's schedules: linear warm-up then linear decay of the learning rate; quadratic ramp of the FLOPS weights.

export interface LinearSchedule {
  peakLr: number;
  totalSteps: number;
  /** Fraction of steps spent warming up (paper: 0.1). */
  warmupRatio: number;
}

/**
 * Learning rate of the update at step t (0-based), as transformers' linear schedule with warm-up:
 * t / warmup during warm-up, then (total - t) / (total - warmup), times the peak.
 */
export function learningRate(schedule: LinearSchedule, t: number): number {
  const warmup = Math.ceil(schedule.warmupRatio * schedule.totalSteps);
  if (t < warmup) return (schedule.peakLr * t) / Math.max(1, warmup);
  return schedule.peakLr * Math.max(0, (schedule.totalSteps - t) / Math.max(1, schedule.totalSteps - warmup));
}

/**
 * λ(t) = λ · min(1, t / T_w)², with T_w = floor(rampFraction · all steps), by default a third (sentence-transformers'
 * SpladeLoss); rampFraction 0: λ from the first step.
 */
export function flopsWeight(lambda: number, t: number, totalSteps: number, rampFraction = 1 / 3): number {
  if (rampFraction === 0) return lambda;
  const rampSteps = Math.max(1, Math.floor(totalSteps * rampFraction));
  return lambda * Math.min(1, t / rampSteps) ** 2;
}

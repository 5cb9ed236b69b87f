// Wall-clock timing shared by the benchmark sections: medians of awaited GPU work.

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Median wall time in ms of `reps` runs of `run` (which must await its GPU work). */
export async function medianMs(reps: number, run: () => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return median(times);
}

// The peers bench's measurement of one system, the same in Node and in Chromium: step 1 (compiles every kernel; its
// loss proves the work is the same, its time is not counted), then `reps` timed steps, median of their times.
import { median } from '../bench/timing.ts';
import type { PeerStepper, PeerSystemName } from './peer-system.ts';
import type { PeerSetting } from './problem.ts';

export interface PeerResult {
  system: PeerSystemName;
  setting: PeerSetting;
  medianMs: number;
  gpuBytes: number | null;
  step1Loss: number;
  adapter: string;
  /** As PeerStepper.onCpu. */
  onCpu: boolean;
  timedSteps: number;
}

export async function measurePeer(
  system: PeerSystemName,
  setting: PeerSetting,
  stepper: PeerStepper,
  reps: number,
): Promise<PeerResult> {
  const step1Loss = await stepper.step(0);
  const times: number[] = [];
  for (let t = 1; t <= reps; t++) {
    const started = performance.now();
    const loss = await stepper.step(t);
    times.push(performance.now() - started);
    if (!Number.isFinite(loss)) throw new Error(`${system} step ${t + 1}: the loss is ${loss}`);
  }
  const result = {
    system,
    setting,
    medianMs: median(times),
    gpuBytes: stepper.gpuBytes(),
    step1Loss,
    adapter: stepper.adapter,
    onCpu: stepper.onCpu,
    timedSteps: reps,
  };
  stepper.dispose();
  return result;
}

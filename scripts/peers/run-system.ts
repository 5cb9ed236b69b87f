// One system of the peers bench in its own process: `run-system.ts <system> <setting> <reps> <size>` prints one line
// "PEER_RESULT {json}" with the step-1 loss, the median step time after warm-up and the GPU bytes.
import { median } from '../bench/timing.ts';
import { jaxPeer } from './jax-peer.ts';
import { RESULT_PREFIX, type PeerSystem } from './peer-system.ts';
import { makePeerProblem, PEER_SETTINGS, PEER_SIZES, type PeerSetting, type PeerSize } from './problem.ts';
import { spladeLabPeer } from './splade-lab-peer.ts';
import { tfjsPeer } from './tfjs-peer.ts';


const SYSTEMS: Record<string, PeerSystem> = { 'splade-lab': spladeLabPeer, 'tfjs-webgpu': tfjsPeer, 'jax-js': jaxPeer };

async function main(): Promise<void> {
  const [system, setting, repsText, size = 'bench'] = process.argv.slice(2);
  const start = SYSTEMS[system];
  if (!start) throw new Error(`unknown system "${system}" (${Object.keys(SYSTEMS).join(', ')})`);
  if (!PEER_SETTINGS.includes(setting as PeerSetting)) throw new Error(`unknown setting "${setting}" (${PEER_SETTINGS.join(', ')})`);
  if (!PEER_SIZES.includes(size as PeerSize)) throw new Error(`unknown size "${size}" (${PEER_SIZES.join(', ')})`);
  const reps = Number(repsText ?? 3);
  const stepper = await start(makePeerProblem(setting as PeerSetting, size as PeerSize));
  // step 1 compiles every kernel: its loss proves the work is the same, its time is not counted
  const step1Loss = await stepper.step(0);
  const times: number[] = [];
  for (let t = 1; t <= reps; t++) {
    const started = performance.now();
    const loss = await stepper.step(t);
    times.push(performance.now() - started);
    if (!Number.isFinite(loss)) throw new Error(`${system} step ${t + 1}: the loss is ${loss}`);
  }
  const result = { system, setting, medianMs: median(times), gpuBytes: stepper.gpuBytes(), step1Loss, adapter: stepper.adapter, timedSteps: reps };
  stepper.dispose();
  console.log(RESULT_PREFIX + JSON.stringify(result));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);

// One system of the peers bench in its own process: `run-system.ts <system> <setting> <reps> <size>` prints one line
// "PEER_RESULT {json}" with the step-1 loss, the median step time after warm-up and the GPU bytes.
import { nodeGpuContext } from '../../src/gpu/webgpu-node.ts';
import { measurePeer } from './measure-peer.ts';
import { installNavigatorGpu } from './navigator-gpu.ts';
import { RESULT_PREFIX, type PeerSystemName } from './peer-system.ts';
import { makePeerProblem, PEER_SETTINGS, PEER_SIZES, type PeerSetting, type PeerSize } from './problem.ts';
import { gpuPeerSystems } from './systems.ts';

const SYSTEMS = gpuPeerSystems(() => nodeGpuContext('peers bench'));

async function main(): Promise<void> {
  const [system, setting, repsText, size = 'bench'] = process.argv.slice(2);
  const start = SYSTEMS[system as PeerSystemName];
  if (!start) throw new Error(`unknown system "${system}" (${Object.keys(SYSTEMS).join(', ')})`);
  if (!PEER_SETTINGS.includes(setting as PeerSetting))
    throw new Error(`unknown setting "${setting}" (${PEER_SETTINGS.join(', ')})`);
  if (!PEER_SIZES.includes(size as PeerSize)) throw new Error(`unknown size "${size}" (${PEER_SIZES.join(', ')})`);
  installNavigatorGpu(); // the peers find the adapter as a page would
  const stepper = await start(makePeerProblem(setting as PeerSetting, size as PeerSize));
  const result = await measurePeer(system as PeerSystemName, setting as PeerSetting, stepper, Number(repsText ?? 3));
  console.log(RESULT_PREFIX + JSON.stringify(result));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);

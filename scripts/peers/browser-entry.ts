// The peers bench inside Chromium: window.runPeer(system, setting, size, reps) runs one system on the page's WebGPU
// adapter and resolves to its result (the same measurement as run-system.ts in Node); window.runInference measures
// encoding in splade-lab and in onnxruntime-web's WebGPU backend (the same measurement as in Node).
import { acquireGpuContext } from '../../src/gpu/acquire.ts';
import { measureInference, type InferenceReport } from './encode-systems.ts';
import { measurePeer, type PeerResult } from './measure-peer.ts';
import type { PeerSystemName } from './peer-system.ts';
import { makePeerProblem, type PeerSetting, type PeerSize } from './problem.ts';
import { gpuPeerSystems } from './systems.ts';

const SYSTEMS = gpuPeerSystems(() => acquireGpuContext(navigator.gpu, 'peers bench'));

declare global {
  interface Window {
    runPeer(system: PeerSystemName, setting: PeerSetting, size: PeerSize, reps: number): Promise<PeerResult>;
    /** `models`: length -> URL of the exported ONNX model of that length. */
    runInference(size: PeerSize, reps: number, models: Record<string, string>): Promise<InferenceReport>;
    peersReady: boolean;
  }
}

window.runPeer = async (system, setting, size, reps) => {
  const start = SYSTEMS[system];
  if (!start) throw new Error(`${system} does not run in the browser`);
  return measurePeer(system, setting, await start(makePeerProblem(setting, size)), reps);
};
window.runInference = async (size, reps, models) => {
  const ort = await import('onnxruntime-web/webgpu');
  ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
  return measureInference(size, reps, {
    environment: 'chromium',
    acquire: () => acquireGpuContext(navigator.gpu, 'peers bench, inference'),
    onnx: {
      ort,
      providers: ['webgpu'],
      model: async (length) => new Uint8Array(await (await fetch(models[length])).arrayBuffer()),
    },
  });
};
window.peersReady = true;

// Writes a peers-bench problem to a folder for the PyTorch peer: problem.json (setting, dims, hyper-parameters,
// array index) and one little-endian raw file per array.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PeerProblem } from './problem.ts';
import { stepInputs } from './splade-step.ts';

export function writeProblemFolder(problem: PeerProblem, folder: string): void {
  mkdirSync(folder, { recursive: true });
  const arrays = { ...stepInputs(problem), ...problem.trainable };
  const index: Record<string, { shape: number[]; dtype: string; file: string }> = {};
  Object.entries(arrays).forEach(([name, array], i) => {
    const file = `array-${i}.bin`;
    writeFileSync(join(folder, file), new Uint8Array(array.data.buffer, array.data.byteOffset, array.data.byteLength));
    index[name] = { shape: array.shape, dtype: array.data instanceof Int32Array ? 'int32' : 'float32', file };
  });
  const meta = {
    setting: problem.setting,
    dims: problem.dims,
    hyper: problem.hyper,
    trainable: Object.keys(problem.trainable),
    arrays: index,
  };
  writeFileSync(join(folder, 'problem.json'), JSON.stringify(meta, null, 2));
}

// Vitest set-up file of the Node tiers: the worker's first GPU device is created in tests/swiftshader/, whose
// SwiftShader.ini asks for one thread per device (tests/swiftshader/README.md); SwiftShader reads it once per process.
import { fileURLToPath } from 'node:url';
import { nodeGpu } from '../../src/gpu/webgpu-node.ts';

const FOLDER = fileURLToPath(new URL('../swiftshader/', import.meta.url));
const PRIMED = Symbol.for('splade-lab.swiftshader-primed');
const state = globalThis as { [PRIMED]?: true };

if (!state[PRIMED]) {
  state[PRIMED] = true;
  const root = process.cwd();
  process.chdir(FOLDER);
  try {
    const adapter = await nodeGpu().requestAdapter();
    (await adapter?.requestDevice())?.destroy();
  } catch {
    // no GPU here at all: the tests that need one say so themselves; the others run as ever
  } finally {
    process.chdir(root);
  }
}

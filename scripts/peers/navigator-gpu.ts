// Gives the peers (which look for navigator.gpu, as in a browser) the same Dawn adapter splade-lab uses in Node.
import { availableParallelism } from 'node:os';
import { nodeGpu } from '../../src/gpu/webgpu-node.ts';

type BrowserNavigator = Pick<Navigator, 'gpu' | 'userAgent' | 'hardwareConcurrency'>;

export function installNavigatorGpu(): void {
  const scope = globalThis as { navigator?: Partial<BrowserNavigator> };
  if (scope.navigator?.gpu) return;
  const fields: BrowserNavigator = {
    gpu: nodeGpu(),
    userAgent: `Node.js ${process.version}`,
    hardwareConcurrency: availableParallelism(),
  };
  if (!scope.navigator) scope.navigator = {};
  for (const [key, value] of Object.entries(fields)) {
    if (!(key in scope.navigator)) Object.defineProperty(scope.navigator, key, { value, configurable: true });
  }
}

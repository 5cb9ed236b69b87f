// The portable run: the GPU-facing Node files again under WebGPU's default limits and the smallest dispatch budget.
// Which files, by rule (no list): every file under tests/node/kernels (kernels against their references, the runtime's
// limits, matrices in row parts) and every `*.gpu.test.ts` elsewhere (the composed encoder and trainer steps, split
// into pieces under the budget). A Node file whose results those settings cannot change lives outside tests/node/kernels
// and keeps the plain `.test.ts` suffix: it runs once, in test:node.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

export const PORTABLE_FILES = ['tests/node/kernels/**/*.test.ts', 'tests/node/**/*.gpu.test.ts'];

export default defineConfig({
  ...base,
  test: { ...base.test, include: PORTABLE_FILES, env: { ...base.test?.env, SPLADE_LAB_PORTABLE: '1' } },
});

// The portable run: the GPU-facing Node files again under WebGPU's default limits and the smallest dispatch budget.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';
import { PORTABLE_TEST_FILES } from './tests/portable-files.ts';

export default defineConfig({
  ...base,
  test: { ...base.test, include: [...PORTABLE_TEST_FILES], env: { ...base.test?.env, SPLADE_LAB_PORTABLE: '1' } },
});

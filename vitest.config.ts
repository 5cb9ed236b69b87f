// Node test suite: kernels on Dawn/SwiftShader through the `webgpu` package, references, io, retrieval.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    pool: 'forks',
    include: ['tests/node/**/*.test.ts'],
    // each worker's SwiftShader runs one thread per device (tests/swiftshader/README.md)
    setupFiles: ['tests/helpers/swiftshader-one-thread.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    maxWorkers: 2,
    // each worker runs its files one after another in one process (tests restore what they change: env, globals):
    // about 40 s less on 2 cores than a fresh process per file, mostly module loading and the Dawn start
    isolate: false,
    // the CLI's batch cache of the tests' runs stays out of the user's ~/.cache
    env: { SPLADE_LAB_BATCH_CACHE: join(tmpdir(), `splade-lab-test-batches-${process.pid}`) },
  },
});

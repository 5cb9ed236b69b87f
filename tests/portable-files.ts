// The Node test files the portable run (WebGPU's default limits, the smallest per-dispatch budget) repeats: the ones
// whose results those settings can change. Everything else (parsers, retrieval, CLI plumbing) runs once.
export const PORTABLE_TEST_FILES: readonly string[] = [
  // kernels, each against its float64 reference (every file that calls expectKernel or checkKernel must be here)
  'active-dims',
  'adamw',
  'check-kernel',
  'dropout',
  'finite-check',
  'flops-step',
  'grad-norm',
  'head-stats',
  'layer-kernels-activations',
  'layer-kernels-attention',
  'layer-kernels-embedding',
  'layer-kernels-layernorm',
  'losses',
  'matmul',
  'splade-head',
  // the device's limits as the runtime reads them
  'gpu-runtime',
  // matrices in row parts
  'large-vocabulary',
  // the composed encoder and trainer steps, split into pieces under the budget
  'gpu-encoder',
  'splade-objective',
  'splade-pipeline',
  'train-checkpoint',
  'device-loss-resume',
  'train-sgd-step',
].map((name) => `tests/node/${name}.test.ts`);

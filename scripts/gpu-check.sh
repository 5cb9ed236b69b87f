#!/usr/bin/env bash
# The kernel tests and the benchmark on this machine's real GPU, through the system's Vulkan driver (not SwiftShader),
# in one command; their output goes to <out-dir> for the note:
#   bash scripts/gpu-check.sh [out-dir]      (after `npm ci`; default out-dir: gpu-check)
# PEAK_TFLOPS=<the device's fp32 peak> adds the fraction of it to the GPU mode's rows (WebGPU does not report it).
set -euo pipefail
out="${1:-gpu-check}"
mkdir -p "$out"
export SPLADE_LAB_GPU=system
kernels=(tests/node/matmul.test.ts tests/node/splade-head.test.ts tests/node/losses.test.ts tests/node/head-stats.test.ts
  tests/node/dropout.test.ts tests/node/grad-norm.test.ts tests/node/adamw.test.ts tests/node/flops-step.test.ts
  tests/node/layer-kernels-attention.test.ts tests/node/layer-kernels-layernorm.test.ts tests/node/layer-kernels-activations.test.ts
  tests/node/layer-kernels-embedding.test.ts tests/node/gpu-encoder.test.ts tests/node/splade-objective.test.ts
  tests/node/train-sgd-step.test.ts)
status=0
npx vitest run "${kernels[@]}" 2>&1 | tee "$out/kernel-tests.log" || status=$?
npm run bench -- --out "$out/bench.json" 2>&1 | tee "$out/bench.log" || status=$?
npm run bench:peers -- --gpu ${PEAK_TFLOPS:+--peak-tflops "$PEAK_TFLOPS"} --out "$out/peers.json" 2>&1 | tee "$out/peers.log" || status=$?
echo "kernel tests and bench on the system GPU: exit $status; logs in $out/"
exit "$status"

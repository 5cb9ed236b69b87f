#!/usr/bin/env bash
# The kernel tests and the benchmark on this machine's real GPU, through the system's Vulkan driver (not SwiftShader),
# in one command; their output goes to <out-dir> for the note:
#   bash scripts/gpu-check.sh [out-dir]      (after `npm ci`; default out-dir: gpu-check)
# PEAK_TFLOPS=<the device's fp32 peak> adds the fraction of it to the GPU mode's rows (WebGPU does not report it).
# It calls node alone (no npm), so that it also runs from the kit of scripts/device-kit.mjs where no registry is
# reachable (scripts/device-gpu-check.sh). A dry run on a CPU adapter: BENCH_ONLY=<sections> PEERS_SIZE=small.
# Most telling first (kernel tests, then the GPU mode's head and matmul figures, then the benches), each stage under
# STAGE_S seconds (default 240), its log in <out-dir> as it goes, so that a stage that hangs costs only itself.
set -euo pipefail
out="${1:-gpu-check}"
mkdir -p "$out"
export SPLADE_LAB_GPU=system
kernels=(tests/node/kernels/matmul.test.ts tests/node/kernels/splade-head.test.ts tests/node/kernels/losses.test.ts tests/node/kernels/head-stats.test.ts
  tests/node/kernels/dropout.test.ts tests/node/kernels/grad-norm.test.ts tests/node/kernels/adamw.test.ts tests/node/kernels/flops-step.test.ts
  tests/node/kernels/layer-kernels-attention.test.ts tests/node/kernels/layer-kernels-layernorm.test.ts tests/node/kernels/layer-kernels-activations.test.ts
  tests/node/kernels/layer-kernels-embedding.test.ts tests/node/model/gpu-encoder.gpu.test.ts tests/node/model/splade-objective.gpu.test.ts
  tests/node/training/train-sgd-step.gpu.test.ts tests/node/kernels/static-query-table.test.ts tests/node/model/expansion-audit.test.ts
  tests/node/training/train-inference-free.test.ts tests/node/training/train-distill-sgd-step.test.ts)
ts=(node --import ./bin/register-hooks.mjs)
stage() { timeout --kill-after=10 "${STAGE_S:-240}" "$@"; }
status=0
# the batch-cache bench reads the demo backbone's tokenizer
"${ts[@]}" scripts/make-demo-backbone.ts
stage node node_modules/vitest/vitest.mjs run "${kernels[@]}" 2>&1 | tee "$out/kernel-tests.log" || status=$?
stage "${ts[@]}" scripts/bench-peers.ts --gpu --size "${PEERS_SIZE:-bench}" ${PEAK_TFLOPS:+--peak-tflops "$PEAK_TFLOPS"} --out "$out/peers.json" 2>&1 | tee "$out/peers.log" || status=$?
stage "${ts[@]}" scripts/bench.ts ${BENCH_ONLY:+--only "$BENCH_ONLY"} --out "$out/bench.json" 2>&1 | tee "$out/bench.log" || status=$?
echo "kernel tests and bench on the system GPU: exit $status; logs in $out/"
exit "$status"

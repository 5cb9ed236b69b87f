#!/usr/bin/env bash
# The GPU check on the lent GPU machine, which reaches no package registry: unpacks the kit that
# scripts/device-kit.mjs made here (Node, the packages, the Vulkan loader; carried as .devkit), finds the NVIDIA Vulkan
# driver, says which adapter Dawn sees, then runs scripts/gpu-check.sh into <out-dir>.
#   bash scripts/device-gpu-check.sh <out-dir>       (on the device; PEAK_TFLOPS as for gpu-check.sh)
set -euo pipefail
out="${1:?usage: device-gpu-check.sh <out-dir>}"
kit="${DEVICE_KIT:-.devkit}"
mkdir -p "$out"
[ -f "$kit/node.xz" ] || { echo "no kit at $kit: run node scripts/device-kit.mjs here and carry .devkit" >&2; exit 2; }
bin=/tmp/splade-lab-kit/bin
mkdir -p "$bin"
xz -dc "$kit/node.xz" > "$bin/node"
chmod +x "$bin/node"
export PATH="$bin:$PATH"
[ -d node_modules ] || tar -xJf "$kit/node_modules.tar.xz"
for deb in "$kit"/debs/*.deb; do dpkg -x "$deb" /; done
ldconfig
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && [ -f "$nvidia_icd" ]; then export VK_DRIVER_FILES="$nvidia_icd"; fi
for lib in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do
  if [ -d "$lib" ]; then export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi
done
export XDG_RUNTIME_DIR=/tmp
{
  echo "node $(node --version); VK_DRIVER_FILES=${VK_DRIVER_FILES:-} VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-}"
  node --input-type=module -e "
    import { create, globals } from 'webgpu';
    Object.assign(globalThis, globals);
    const adapter = await create([]).requestAdapter({ powerPreference: 'high-performance' });
    const { vendor, architecture, device, description } = adapter?.info ?? {};
    console.log(adapter ? 'adapter: ' + JSON.stringify({ vendor, architecture, device, description, fallback: adapter.info.isFallbackAdapter }) : 'no WebGPU adapter');"
} 2>&1 | tee "$out/adapter.txt"
bash scripts/gpu-check.sh "$out"

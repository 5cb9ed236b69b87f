// Memory a backbone needs (from config.json and the weight files' headers) against the device's limits.
import { estimateCheckpointBytes } from '../io/checkpoint.ts';
import type { FileSource, ReadOptions } from '../io/file-source.ts';
import { formatBytes } from '../gpu/errors.ts';
import type { ModelConfig } from '../model/config.ts';
import { parameterCount, parameterLayout } from '../model/layout.ts';
import type { MemoryEstimate } from './api.ts';

export interface DeviceLimits {
  maxBufferSize: number;
  maxStorageBufferBindingSize: number;
}

export async function estimateModelMemory(
  source: FileSource,
  config: ModelConfig,
  limits: DeviceLimits,
  options?: ReadOptions,
): Promise<MemoryEstimate> {
  const checkpoint = await estimateCheckpointBytes(source, options);
  let downloadBytes: number | null = 0;
  for (const file of checkpoint.files) {
    const probe = source.readRange ? await source.readRange(file, 0, 1, options) : null;
    downloadBytes = probe && downloadBytes !== null ? downloadBytes + probe.fileSize : null;
  }
  const layout = parameterLayout(config);
  const largest = layout.reduce((best, spec) => Math.max(best, 4 * spec.shape.reduce((a, b) => a * b, 1)), 0);
  const largestName = layout.find((spec) => 4 * spec.shape.reduce((a, b) => a * b, 1) === largest)?.role ?? 'a tensor';
  const problems: string[] = [];
  const binding = limits.maxStorageBufferBindingSize;
  if (largest > binding) {
    problems.push(
      `The ${largestName} (${formatBytes(largest)}) is larger than this GPU allows in one buffer binding ` +
        `(maxStorageBufferBindingSize ${formatBytes(binding)}). Try a smaller model or a browser/GPU with higher limits.`,
    );
  } else if (largest > limits.maxBufferSize) {
    problems.push(`The ${largestName} (${formatBytes(largest)}) is larger than this GPU's maxBufferSize (${formatBytes(limits.maxBufferSize)}).`);
  }
  return {
    downloadBytes,
    gpuBytes: Math.max(checkpoint.bytes, 4 * parameterCount(config)),
    largestTensorBytes: largest,
    parameters: parameterCount(config),
    maxBufferSize: limits.maxBufferSize,
    maxStorageBufferBindingSize: binding,
    problems,
  };
}

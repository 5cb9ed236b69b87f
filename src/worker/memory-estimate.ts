// Memory a backbone needs (from config.json, then the weight files' headers) against the device's limits.
import { estimateCheckpointBytes } from '../io/checkpoint.ts';
import type { FileSource, ReadOptions } from '../io/file-source.ts';
import type { ModelConfig } from '../model/config.ts';
import { parameterCount, parameterLayout } from '../model/layout.ts';
import { deviceFitError, type DeviceLimits } from '../model/load-model.ts';
import type { MemoryEstimate } from './api.ts';

/** What config.json alone tells: parameters, the largest tensor, and whether it fits one binding. */
export function configMemory(config: ModelConfig, limits: DeviceLimits): MemoryEstimate {
  const layout = parameterLayout(config);
  const bytesOf = (shape: number[]) => 4 * shape.reduce((a, b) => a * b, 1);
  const largestSpec = layout.reduce((best, spec) => (bytesOf(spec.shape) > bytesOf(best.shape) ? spec : best));
  const largest = bytesOf(largestSpec.shape);
  const tooLarge = deviceFitError(config, limits, 'the model');
  const problems = tooLarge
    ? [`${tooLarge.message.replace(/^the model: /, 'Its ')} A browser or GPU with higher limits may also do.`]
    : [];
  const parameters = parameterCount(config);
  return {
    downloadBytes: null,
    gpuBytes: 4 * parameters,
    largestTensorBytes: largest,
    parameters,
    maxBufferSize: limits.maxBufferSize,
    maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
    problems,
  };
}

/** configMemory, completed from the weight files' headers: fp32 bytes as stored and the download size. */
export async function estimateModelMemory(source: FileSource, config: ModelConfig, limits: DeviceLimits, options?: ReadOptions): Promise<MemoryEstimate> {
  const fromConfig = configMemory(config, limits);
  if (fromConfig.problems.length > 0) return fromConfig;
  const checkpoint = await estimateCheckpointBytes(source, options);
  let downloadBytes: number | null = 0;
  for (const file of checkpoint.files) {
    const probe = source.readRange ? await source.readRange(file, 0, 1, options) : null;
    downloadBytes = probe && downloadBytes !== null ? downloadBytes + probe.fileSize : null;
  }
  return { ...fromConfig, downloadBytes, gpuBytes: Math.max(fromConfig.gpuBytes, checkpoint.bytes) };
}

// A training checkpoint folder (state.json, model.safetensors under splade-lab's parameter names) read as a model
// folder: config.json from its state and the weights under Hugging Face's names, so that `inspect`, the page's head
// view and everything that opens a model can look at the head at any checkpoint of a run (masked-LM or SPLADE).
import type { FileSource, ReadOptions } from '../../io/file-source.ts';
import { readSafetensors, writeSafetensors } from '../../io/formats/safetensors.ts';
import { parseModelConfig } from '../../model/config.ts';
import { toHuggingFaceTensors } from '../../model/weights.ts';
import { CHECKPOINT_FORMAT } from '../../contract/experiments/stored-records.ts';
import { crc32 } from '../../util/crc32.ts';

const WEIGHTS = 'model.safetensors';

/** `files` itself when it has a config.json or is no checkpoint; else the checkpoint seen as a model folder. */
export async function checkpointAsModel(files: FileSource, options?: ReadOptions): Promise<FileSource> {
  if ((await files.readFile('config.json', options)) !== null) return files;
  const stateBytes = await files.readFile('state.json', options);
  if (stateBytes === null) return files;
  let state: { format?: unknown; t?: unknown; k?: unknown; config?: unknown; files?: Record<string, { crc32?: unknown }> };
  try {
    state = JSON.parse(new TextDecoder().decode(stateBytes)) as typeof state;
  } catch {
    return files; // not a state file of ours: the caller's "config.json is missing" stands
  }
  if (state?.format !== CHECKPOINT_FORMAT) return files;
  const where = `${files.label}/${WEIGHTS}`;
  const weights = await files.readFile(WEIGHTS, options);
  if (weights === null) throw new Error(`${files.label} is a splade-lab checkpoint without its ${WEIGHTS}`);
  const expected = state.files?.[WEIGHTS]?.crc32;
  if (typeof expected === 'number' && crc32(weights) !== expected)
    throw new Error(`${where} does not match the CRC-32 its state.json recorded: the checkpoint is damaged`);
  const config = parseModelConfig(state.config, { source: `${files.label}/state.json (config)` });
  const hfTensors = toHuggingFaceTensors(config, readSafetensors(weights, where).tensors);
  const step = typeof state.t === 'number' ? state.t : '?';
  const k = typeof state.k === 'number' && state.k !== 1 ? `, head divided by k = ${state.k}` : '';
  const made = new Map<string, Uint8Array>([
    ['config.json', new TextEncoder().encode(JSON.stringify(state.config))],
    [WEIGHTS, writeSafetensors(hfTensors, { format: 'pt' })],
  ]);
  return {
    label: `${files.label} (checkpoint at step ${step}${k})`,
    async readFile(name, readOptions) {
      return made.get(name) ?? files.readFile(name, readOptions);
    },
    async readRange(name, start, length, readOptions) {
      const bytes = made.get(name);
      if (bytes) return { bytes: bytes.subarray(start, start + length), fileSize: bytes.length };
      return files.readRange ? files.readRange(name, start, length, readOptions) : null;
    },
  };
}

// The text of `splade-lab mlm` in Node: a .txt or .jsonl file or a BEIR corpus folder (its corpus.jsonl), or a
// pre-masked batches file, read whole and made into the run's sequences by mlm-source.ts.
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createFolderSequenceCache } from '../../train/mlm/mlm-sequence-cache-node.ts';
import { readRegularFile } from '../../io/regular-file-node.ts';
import type { MlmRequest } from '../../contract/training/mlm-request.ts';
import { mlmSourceFromBytes, type MlmSourceOptions } from './mlm-source.ts';
import type { MlmSource } from './mlm.ts';

export interface MlmInput {
  kind: 'text' | 'batches';
  path: string;
  /** The option that named it, for messages. */
  option: string;
}

/**
 * Reads the input whole and makes the run's sequences for `request` (its layout and length); with `cache`, a text's
 * sequences are kept in SPLADE_LAB_BATCH_CACHE (default ~/.cache/splade-lab/batches) beside the triplet batches.
 */
export async function openMlmSource(
  input: MlmInput,
  request: MlmRequest,
  options: Omit<MlmSourceOptions, 'cache'> & { cache: boolean },
): Promise<MlmSource> {
  let path = input.path;
  if (input.kind === 'text' && (await stat(path).catch(() => null))?.isDirectory()) path = join(path, 'corpus.jsonl');
  const bytes = await readRegularFile(path, { what: input.option });
  const root = process.env.SPLADE_LAB_BATCH_CACHE ?? join(homedir(), '.cache', 'splade-lab', 'batches');
  const cache = options.cache ? createFolderSequenceCache(root) : undefined;
  return mlmSourceFromBytes(bytes, path, input.kind, request, { ...options, cache });
}

// The sequences of a masked-LM run from a file's bytes, on any platform: text (.txt or .jsonl, one document per line)
// tokenized and grouped into full blocks or kept one per line, or pre-masked batches; with the data's fingerprint.
import { readMlmDocuments } from '../../io/mlm-text.ts';
import { readMaskedBatches } from '../../io/masked-batches-jsonl.ts';
import type { TextTokenizer } from '../../io/tokenizer.ts';
import type { ModelConfig } from '../../contract/model-config.ts';
import type { MlmRequest } from '../../contract/mlm-request.ts';
import { crc32 } from '../../util/crc32.ts';
import { groupIntoBlocks, MlmBatches, type MlmRow } from '../../train/mlm-batches.ts';
import { unmaskableIds } from '../../train/mlm-masking.ts';
import type { MlmSource } from './mlm.ts';

export interface MlmSourceOptions {
  tokenizer: TextTokenizer;
  config: ModelConfig;
  /** Told what was read: documents, skipped ones, sequences, tokens. */
  say?: (line: string, fields: Record<string, unknown>) => void;
}

/** The run's sequences for `request` (its layout and length) from a whole file, named `path` in messages. */
export function mlmSourceFromBytes(
  bytes: Uint8Array,
  path: string,
  kind: 'text' | 'batches',
  request: MlmRequest,
  options: MlmSourceOptions,
): MlmSource {
  const { tokenizer, config } = options;
  const T = request.maxLength;
  let rows: MlmRow[];
  if (kind === 'batches') {
    rows = readMaskedBatches(bytes, path, { vocabSize: config.vocabSize, maxLength: T });
    options.say?.(`${path}: ${rows.length} pre-masked sequences`, { sequences: rows.length });
  } else {
    const { documents, skipped } = readMlmDocuments(bytes, path);
    const grouped = request.layout === 'grouped';
    const encoded = documents.map((text) => tokenizer.encode(text, grouped ? {} : { maxLength: T }).ids);
    rows = grouped ? groupIntoBlocks(encoded, T) : encoded.map((ids) => ({ ids: Int32Array.from(ids) }));
    const tokens = encoded.reduce((n, ids) => n + ids.length, 0);
    if (rows.length === 0)
      throw new Error(
        `${path}: its ${documents.length} documents hold ${tokens} tokens, fewer than one block of ${T}; use a shorter --max-length or --line-by-line`,
      );
    options.say?.(
      `${path}: ${documents.length} documents${skipped ? ` (${skipped} empty ones skipped)` : ''}, ${tokens} tokens, ` +
        `${rows.length} sequences ${grouped ? `of ${T} tokens (the last ${tokens % T} tokens left out)` : `of at most ${T} tokens`}`,
      { documents: documents.length, skipped, tokens, sequences: rows.length },
    );
  }
  const fingerprint = { name: path, triplets: rows.length, crc32: crc32(bytes) };
  return {
    fingerprint,
    sequences: rows.length,
    data: (recipe, seed) => ({
      fingerprint,
      batches: (position) =>
        new MlmBatches(
          rows,
          {
            batchSize: recipe.batchSize,
            maxLength: recipe.maxLength,
            dataOrder: recipe.dataOrder,
            padId: tokenizer.specialIds.pad,
          },
          seed,
          kind === 'batches'
            ? null
            : {
                probability: recipe.mlmProbability,
                maskId: tokenizer.specialIds.mask,
                vocabSize: config.vocabSize,
                never: unmaskableIds(tokenizer.specialIds),
              },
          position,
        ),
    }),
  };
}

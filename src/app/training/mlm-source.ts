// The sequences of a masked-LM run from a file's bytes, on any platform: text (.txt or .jsonl, one document per line)
// tokenized and grouped into full blocks or kept one per line, or pre-masked batches (their length the longest
// sequence's unless the request gives one); with the data's fingerprint and the run's sequence length.
import { readMlmDocuments } from '../../io/triplets/mlm-text.ts';
import { readMaskedBatches } from '../../io/triplets/masked-batches-jsonl.ts';
import type { TextTokenizer } from '../../io/tokenizer/tokenizer.ts';
import type { ModelConfig } from '../../contract/model/model-config.ts';
import { MLM_DEFAULTS, type MlmRequest } from '../../contract/training/mlm-request.ts';
import { maxSequenceTokens } from '../../contract/model/max-tokens.ts';
import { TRAIN_LIMITS } from '../../contract/limits.ts';
import { crc32 } from '../../util/crc32.ts';
import { groupIntoBlocks, MlmBatches, type MlmRow } from '../../train/mlm/mlm-batches.ts';
import { unmaskableIds } from '../../train/mlm/mlm-masking.ts';
import {
  decodeTokenizedText,
  encodeTokenizedText,
  sequenceCacheKey,
  sequenceSeal,
  type SequenceCacheStore,
  type TokenizedText,
} from '../../train/mlm/mlm-sequence-cache.ts';
import { tokenizerDigest } from '../../io/tokenizer/tokenizer-fingerprint.ts';
import type { MlmSource } from './mlm.ts';

export interface MlmSourceOptions {
  tokenizer: TextTokenizer;
  config: ModelConfig;
  /** Told what was read: documents, skipped ones, sequences, tokens. */
  say?: (line: string, fields: Record<string, unknown>) => void;
  /** Keeps a text's sequences between runs (absent: the text is tokenized every time). */
  cache?: SequenceCacheStore;
}

/** Tokens per sequence of a text: the request's, or the default. */
function textLength(request: MlmRequest): number {
  return request.maxLength ?? MLM_DEFAULTS.maxLength;
}

/** The text's documents tokenized into the run's sequences (full blocks, or one per document). */
function tokenizeText(
  bytes: Uint8Array,
  path: string,
  request: MlmRequest,
  tokenizer: MlmSourceOptions['tokenizer'],
): TokenizedText {
  const T = textLength(request);
  const { documents, skipped } = readMlmDocuments(bytes, path);
  const grouped = request.layout === 'grouped';
  const encoded = documents.map((text) => tokenizer.encode(text, grouped ? {} : { maxLength: T }).ids);
  const rows = grouped ? groupIntoBlocks(encoded, T) : encoded.map((ids) => ({ ids: Int32Array.from(ids) }));
  const tokens = encoded.reduce((n, ids) => n + ids.length, 0);
  if (rows.length === 0)
    throw new Error(
      `${path}: its ${documents.length} documents hold ${tokens} tokens, fewer than one block of ${T}; use a shorter --max-length or --line-by-line`,
    );
  return { rows, documents: documents.length, skipped, tokens };
}

/**
 * The text's sequences from the cache when it holds them under the text's seal (the SHA-256 of the text and of the
 * tokenizer, the layout, the length); a damaged blob, or one made from another text under the same name, is said once
 * and made again.
 */
async function textSequences(
  bytes: Uint8Array,
  path: string,
  request: MlmRequest,
  options: MlmSourceOptions,
): Promise<TokenizedText & { cached: boolean }> {
  const { cache, tokenizer } = options;
  if (!cache) return { ...tokenizeText(bytes, path, request, tokenizer), cached: false };
  const seal = await sequenceSeal(bytes, await tokenizerDigest(tokenizer), request.layout, textLength(request));
  const key = sequenceCacheKey(seal);
  const blob = await cache.get(key);
  if (blob) {
    const decoded = decodeTokenizedText(blob, seal);
    if ('text' in decoded) return { ...decoded.text, cached: true };
    const [what, note] = decoded.foreign ? ['a foreign', 'foreign-sequence-cache'] : ['a damaged', 'damaged-sequence-cache'];
    options.say?.(`note: ${cache.label} holds ${what} ${key} (${decoded.problem}): the text is tokenized again`, { note });
  }
  const made = tokenizeText(bytes, path, request, tokenizer);
  await cache.put(key, encodeTokenizedText(made, seal));
  return { ...made, cached: false };
}

/** The run's sequences for `request` (its layout and length) from a whole file, named `path` in messages. */
export async function mlmSourceFromBytes(
  bytes: Uint8Array,
  path: string,
  kind: 'text' | 'batches',
  request: MlmRequest,
  options: MlmSourceOptions,
): Promise<MlmSource> {
  const { tokenizer, config } = options;
  let rows: MlmRow[];
  let T: number;
  if (kind === 'batches') {
    // the batches carry their own length: the longest sequence, or --max-length when given (the most one may hold)
    const modelMost = Math.min(maxSequenceTokens(config), TRAIN_LIMITS.documentLength.max);
    rows = readMaskedBatches(bytes, path, {
      vocabSize: config.vocabSize,
      maxLength: request.maxLength ?? modelMost,
      maxLengthWhat: request.maxLength === undefined ? `the ${modelMost} tokens this model takes` : undefined,
    });
    const longest = rows.reduce((most, row) => Math.max(most, row.ids.length), 0);
    T = request.maxLength ?? Math.max(longest, TRAIN_LIMITS.documentLength.min);
    options.say?.(`${path}: ${rows.length} pre-masked sequences of at most ${longest} tokens`, {
      sequences: rows.length,
      longest,
    });
  } else {
    T = textLength(request);
    const text = await textSequences(bytes, path, request, options);
    rows = text.rows;
    const grouped = request.layout === 'grouped';
    options.say?.(
      `${path}: ${text.documents} documents${text.skipped ? ` (${text.skipped} empty ones skipped)` : ''}, ${text.tokens} tokens, ` +
        `${rows.length} sequences ${grouped ? `of ${T} tokens (the last ${text.tokens % T} tokens left out)` : `of at most ${T} tokens`}` +
        (text.cached ? ' (tokenized before: read from the sequence cache)' : ''),
      { documents: text.documents, skipped: text.skipped, tokens: text.tokens, sequences: rows.length, cached: text.cached },
    );
  }
  const fingerprint = { name: path, triplets: rows.length, crc32: crc32(bytes) };
  return {
    fingerprint,
    sequences: rows.length,
    maxLength: T,
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

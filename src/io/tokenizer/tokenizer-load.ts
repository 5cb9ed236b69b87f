// Picks a model's tokenizer: tokenizer.json when present, otherwise a WordPiece tokenizer from vocab.txt (as the
// tokenizer.json object that vocab.txt makes, which the OpenSearch bundles also write).
import { MAX_CONFIG_FILE_BYTES, fileLocation, readJsonFile, type FileSource, type ReadOptions } from '../file-source.ts';
import { decodeUtf8Strict } from '../text-decode.ts';
import type { TextTokenizer } from './tokenizer.ts';
import { createTokenizerJsonTokenizer, type Json } from './tokenizer-json.ts';
import { wordPieceTokenizerJson } from './wordpiece.ts';

export async function loadTokenizer(source: FileSource, options?: ReadOptions): Promise<TextTokenizer> {
  const { json, config, file } = await readTokenizerJson(source, options);
  // a vocab.txt's tokenizer names its specials itself (wordpiece.ts)
  if (file === 'vocab.txt') return createTokenizerJsonTokenizer(json);
  try {
    return createTokenizerJsonTokenizer(json, config);
  } catch (error) {
    throw new Error(`tokenizer.json in ${source.label}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

/**
 * A model's tokenizer as a tokenizer.json object (the file, or the one a vocab.txt and tokenizer_config.json make),
 * with tokenizer_config.json; `file` names what it was read from.
 */
export async function readTokenizerJson(
  source: FileSource,
  options?: ReadOptions,
): Promise<{ json: Json; config: Json; file: 'tokenizer.json' | 'vocab.txt' }> {
  const config = ((await readJsonFile(source, 'tokenizer_config.json', options)) ?? {}) as Json;
  const tokenizerJson = await readJsonFile(source, 'tokenizer.json', options);
  if (tokenizerJson !== null) return { json: tokenizerJson as Json, config, file: 'tokenizer.json' };
  const vocab = await source.readFile('vocab.txt', { ...options, maxFileBytes: MAX_CONFIG_FILE_BYTES });
  if (vocab === null) throw new Error(`no tokenizer in ${source.label}: neither tokenizer.json nor vocab.txt`);
  const specialTokens = Object.values(
    (config.added_tokens_decoder ?? {}) as Record<string, { special?: unknown; content?: unknown } | null>,
  )
    .filter((t) => t?.special && typeof t.content === 'string')
    .map((t) => t!.content as string);
  const json = wordPieceTokenizerJson(decodeUtf8Strict(vocab, fileLocation(source, 'vocab.txt')), {
    lowercase: config.do_lower_case ?? true,
    stripAccents: config.strip_accents ?? null,
    tokenizeChineseChars: config.tokenize_chinese_chars ?? true,
    specialTokens,
  });
  return { json: json as Json, config, file: 'vocab.txt' };
}

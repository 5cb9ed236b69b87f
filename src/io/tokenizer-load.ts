// Picks a model's tokenizer: tokenizer.json when present, otherwise a WordPiece tokenizer from vocab.txt.
import { MAX_CONFIG_FILE_BYTES, fileLocation, readJsonFile, type FileSource, type ReadOptions } from './file-source.ts';
import { decodeUtf8Strict } from './text-decode.ts';
import type { TextTokenizer } from './tokenizer.ts';
import { createTokenizerJsonTokenizer, type Json } from './tokenizer-json.ts';
import { createWordPieceTokenizer } from './wordpiece.ts';

export async function loadTokenizer(source: FileSource, options?: ReadOptions): Promise<TextTokenizer> {
  const config = ((await readJsonFile(source, 'tokenizer_config.json', options)) ?? {}) as Json;
  const tokenizerJson = await readJsonFile(source, 'tokenizer.json', options);
  if (tokenizerJson !== null) {
    try {
      return createTokenizerJsonTokenizer(tokenizerJson as Json, config);
    } catch (error) {
      throw new Error(`tokenizer.json in ${source.label}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
  }
  const vocab = await source.readFile('vocab.txt', { ...options, maxFileBytes: MAX_CONFIG_FILE_BYTES });
  if (vocab === null) throw new Error(`no tokenizer in ${source.label}: neither tokenizer.json nor vocab.txt`);
  const specialTokens = Object.values(
    (config.added_tokens_decoder ?? {}) as Record<string, { special?: unknown; content?: unknown } | null>,
  )
    .filter((t) => t?.special && typeof t.content === 'string')
    .map((t) => t!.content as string);
  return createWordPieceTokenizer(decodeUtf8Strict(vocab, fileLocation(source, 'vocab.txt')), {
    lowercase: config.do_lower_case ?? true,
    stripAccents: config.strip_accents ?? null,
    tokenizeChineseChars: config.tokenize_chinese_chars ?? true,
    specialTokens,
  });
}

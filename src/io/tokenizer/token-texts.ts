// The text each token id decodes to alone, as OpenSearch ml-commons names tokens (SparseTokenizerModel and
// SparseEncodingTranslator: DJL's HuggingFaceTokenizer.decode([id], skipSpecialTokens = true), the Rust tokenizers'
// decoder chain with no Python clean-up): a WordPiece piece stays as written ("##ing"), a byte-level BPE piece loses its
// byte alphabet ("Ġthe" -> " the"; a lone byte of a multi-byte character -> "\ufffd"), a special token becomes "".
import { Tokenizer } from '@huggingface/tokenizers';
import type { Json } from './tokenizer-json.ts';

/** decoded[id] for every id of the tokenizer.json (added tokens included); "" for special tokens. */
export function decodedTokenTexts(tokenizerJson: Json): string[] {
  const library = new Tokenizer(tokenizerJson, {});
  let size = 0;
  for (const id of library.get_vocab(true).values()) size = Math.max(size, id + 1);
  return Array.from({ length: size }, (_, id) =>
    library.decode([id], { skip_special_tokens: true, clean_up_tokenization_spaces: false }),
  );
}

// A tokenizer's special token ids, which an inference-free run's query table keeps at 0 (trained or not).
import type { TextTokenizer } from '../../io/tokenizer/tokenizer.ts';

/** The tokenizer's special token ids ([CLS], [SEP], [PAD], ... as it names them), each once. */
export function specialTokenIds(tokenizer: TextTokenizer): number[] {
  return [...new Set(Object.values(tokenizer.specialIds).filter((id): id is number => id !== null))];
}

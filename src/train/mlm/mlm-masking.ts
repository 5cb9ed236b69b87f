// Masking as Hugging Face's DataCollatorForLanguageModeling: each non-special, non-padding token is chosen with the
// masking probability; of those, 80% become [MASK], 10% a random token, 10% stay; labels are the chosen tokens' ids
// and -100 elsewhere. Draws come from a seed, so a resumed run masks its batches as an uninterrupted one.
import { Random } from '../../util/random.ts';
import { IGNORED_LABEL } from '../../contract/training/mlm-recipe.ts';

export interface MaskingSettings {
  /** Chance of each maskable token to be chosen (mlm_probability): above 0, at most 1. */
  probability: number;
  maskId: number;
  vocabSize: number;
  /** Ids never chosen: the special tokens ([CLS], [SEP], [PAD], [MASK], [UNK]) and the pad id. */
  never: ReadonlySet<number>;
  /** Of the chosen: the share replaced by [MASK] (0.8), and of the rest the share replaced by a random id (0.5). */
  maskShare?: number;
  randomShare?: number;
}

export interface MaskedRows {
  inputIds: Int32Array;
  labels: Int32Array;
}

/** Masks rows of `ids` (any number of rows, padding under attention 0 never chosen) with draws from `random`. */
export function maskTokens(ids: Int32Array, attention: Uint8Array, settings: MaskingSettings, random: Random): MaskedRows {
  const { probability, maskId, vocabSize, never } = settings;
  if (!(probability > 0 && probability <= 1))
    throw new RangeError(`the masking probability must be above 0 and at most 1, got ${probability}: at 0 nothing is predicted`);
  const maskShare = settings.maskShare ?? 0.8;
  const randomShare = settings.randomShare ?? 0.5;
  const inputIds = Int32Array.from(ids);
  const labels = new Int32Array(ids.length).fill(IGNORED_LABEL);
  for (let i = 0; i < ids.length; i++) {
    // every position draws the same number of values, so one token's fate never shifts another's draws
    const [choose, replace, swap, token] = [random.next(), random.next(), random.next(), random.int(vocabSize)];
    if (!attention[i] || never.has(ids[i]) || choose >= probability) continue;
    labels[i] = ids[i];
    if (replace < maskShare) inputIds[i] = maskId;
    else if (swap < randomShare) inputIds[i] = token;
  }
  return { inputIds, labels };
}

/** The special ids a tokenizer never lets masking choose. */
export function unmaskableIds(special: { cls: number; sep: number; pad: number; mask: number; unk: number | null }): Set<number> {
  return new Set([special.cls, special.sep, special.pad, special.mask, ...(special.unk === null ? [] : [special.unk])]);
}

/** The seed of one batch's masks: the run's seed and the batch's data position mixed (so a resume repeats them). */
export function maskingSeed(seed: number, epoch: number, index: number): number {
  let h = Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(epoch + 1, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

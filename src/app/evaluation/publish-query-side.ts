// The query side a published search ships for an inference-free model: its tokenizer as the runtime's WordPiece reads
// it (src/publish-runtime/query-tokenizer.ts), taken from the definition splade-lab's own tokenizer runs, and checked
// against that tokenizer on the texts at hand before anything is written, so that a published query never gets other
// token ids than `splade-lab eval` gives it.
import type { AddedTokenSpec, QueryTokenizerSpec } from '../../publish-runtime/manifest.ts';
import { createQueryTokenizer } from '../../publish-runtime/query-tokenizer.ts';
import type { TextTokenizer } from '../../io/tokenizer/tokenizer.ts';

/** Texts that have tripped tokenizers: accents, CJK, emoji, controls, long words, added tokens inside text. */
export const TRICKY_QUERY_TEXTS: readonly string[] = [
  '',
  '   ',
  'Café crème brûlée naïve résumé',
  'İstanbul ǅemal ß ẞ Ωmega ﬁle',
  '東京駅は大きい big station',
  '𠀀𠀁 𪜀 rare ideographs',
  'sun ☀️ and sea 🌊 👩‍👩‍👧',
  'tab\there\nnew line\r\nand\u00a0nbsp\u2003em space',
  'zero\u200bwidth\u200djoiner\ufeffbom',
  'control\u0000null\u0007bell\u001bescape\ufffdreplacement',
  'what is [MASK] and [CLS] [SEP] [PAD] [UNK]',
  '[mask] lower-case special',
  'x'.repeat(101) + ' ' + 'y'.repeat(100),
  'e-mail: someone@example.org, https://example.org/a?b=c#d',
  "don't won't it's — “quoted” «guillemets» ¿qué?",
  'COVID-19 IL-6 TNF-α β-catenin p53 mRNA H₂O 10⁻³ ½',
  'Ａｂｃ full width ｶﾀｶﾅ',
  'e\u0301 combining acute vs é precomposed',
  'Ελληνικά Русский العربية हिन्दी ไทย 한국어',
  '\ud800 lone surrogate',
];

/** The model type @huggingface/tokenizers takes a tokenizer.json model for (bert-base-uncased's names none: WordPiece by its keys). */
function modelType(model: Record<string, unknown> | null): string {
  if (!model) return 'missing';
  if (typeof model.type === 'string') return model.type;
  if (Array.isArray(model.vocab)) return 'Unigram';
  const has = (key: string) => Object.hasOwn(model, key);
  if (model.vocab && has('continuing_subword_prefix') && has('unk_token')) return has('merges') ? 'BPE' : 'WordPiece';
  return 'unknown';
}

/** The tokenizer spec of `tokenizer`, or an error saying what the runtime cannot reproduce. */
export function queryTokenizerSpec(
  tokenizer: TextTokenizer,
  maxTokens: number | null | undefined,
  modelName: string,
): QueryTokenizerSpec {
  const refuse = (what: string): never => {
    throw new Error(
      `${modelName}: the published search's tokenizer runs BERT's WordPiece (BertNormalizer, BertPreTokenizer), and this model's tokenizer has ${what}; ` +
        'publishing other tokenizers (byte-level BPE, SentencePiece) is not built yet',
    );
  };
  if (!tokenizer.definition) refuse('no definition to read');
  const [normalizer, preTokenizer, model, , addedTokens] = JSON.parse(tokenizer.definition!) as [
    Record<string, unknown> | null,
    Record<string, unknown> | null,
    Record<string, unknown> | null,
    unknown,
    Record<string, unknown>[] | null,
  ];
  if (modelType(model) !== 'WordPiece') refuse(`a ${modelType(model)} model`);
  if (normalizer !== null && normalizer?.type !== 'BertNormalizer') refuse(`a ${String(normalizer?.type)} normalizer`);
  if (preTokenizer?.type !== 'BertPreTokenizer') refuse(`a ${String(preTokenizer?.type ?? 'missing')} pre-tokenizer`);
  const vocabulary = model!.vocab as Record<string, number>;
  const added: AddedTokenSpec[] = (addedTokens ?? []).map((t) => ({
    content: String(t.content),
    id: Number(t.id),
    singleWord: t.single_word === true,
    lstrip: t.lstrip === true,
    rstrip: t.rstrip === true,
    normalized: (t.normalized as boolean | undefined) ?? t.special !== true,
  }));
  let size = 0;
  for (const id of Object.values(vocabulary)) size = Math.max(size, id + 1);
  const vocab: (string | null)[] = new Array<string | null>(size).fill(null);
  for (const [token, id] of Object.entries(vocabulary)) vocab[id] = token;
  return {
    type: 'wordpiece',
    normalizer: normalizer
      ? {
          cleanText: normalizer.clean_text === true,
          handleChineseChars: normalizer.handle_chinese_chars === true,
          lowercase: normalizer.lowercase === true,
          stripAccents: (normalizer.strip_accents as boolean | null | undefined) ?? null,
        }
      : null,
    unkToken: String(model!.unk_token ?? '[UNK]'),
    continuingSubwordPrefix: String(model!.continuing_subword_prefix ?? '##'),
    maxInputCharsPerWord: Number(model!.max_input_chars_per_word ?? 100),
    addedTokens: added,
    maxTokens: maxTokens ?? null,
    vocab,
  };
}

/**
 * Refuses the spec unless the runtime's tokenizer gives `modelIds(text)` for every text (the corpus's queries and
 * document openings, and TRICKY_QUERY_TEXTS): a tokenizer option the runtime does not reproduce shows up here, before
 * the corpus is encoded, never as queries that quietly miss. Returns how many texts were compared.
 */
export function checkQueryTokenizer(
  spec: QueryTokenizerSpec,
  modelIds: (text: string) => number[],
  texts: readonly string[],
): number {
  const runtime = createQueryTokenizer(spec);
  const all = [...TRICKY_QUERY_TEXTS, ...texts];
  const differ: { text: string; ours: number[]; theirs: number[] }[] = [];
  for (const text of all) {
    const ours = runtime.ids(text);
    const theirs = modelIds(text);
    if (ours.length !== theirs.length || ours.some((id, i) => id !== theirs[i])) differ.push({ text, ours, theirs });
  }
  if (differ.length) {
    const { text, ours, theirs } = differ[0];
    throw new Error(
      `the published search's tokenizer gives other token ids than the model's for ${differ.length} of ${all.length} texts, ` +
        `e.g. ${JSON.stringify(text.slice(0, 80))}: [${ours.slice(0, 12).join(', ')}] against [${theirs.slice(0, 12).join(', ')}]; ` +
        'its queries would miss documents, so nothing was published (a tokenizer_config.json option the runtime does not reproduce?)',
    );
  }
  return all.length;
}

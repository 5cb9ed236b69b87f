// The `tokenizer_class` a saved tokenizer_config.json names, so that transformers' AutoTokenizer finds the tokenizer
// from that file alone: a sentence-transformers module folder (SparseStaticEmbedding's) has a config.json of its own
// ({"frozen": ...}) with no model_type, which AutoTokenizer (transformers 4.x) reads when tokenizer_class is missing.

/**
 * Class per model_type, each one AutoTokenizer resolves by name in transformers 4.x (TOKENIZER_MAPPING_NAMES'
 * slow or fast names, or PreTrainedTokenizerFast) and 5.x (its single names, TokenizersBackend otherwise).
 * DistilBERT and GTE ("new") use BERT's WordPiece tokenizer: BertTokenizer is known under that name in both.
 */
const CLASS_BY_MODEL_TYPE = new Map<string, string>([
  ['bert', 'BertTokenizer'],
  ['distilbert', 'BertTokenizer'],
  ['new', 'BertTokenizer'],
  ['roberta', 'RobertaTokenizer'],
  ['xlm-roberta', 'XLMRobertaTokenizer'],
  ['albert', 'AlbertTokenizer'],
  ['modernbert', 'PreTrainedTokenizerFast'],
]);

/** The tokenizer class for a model_type; with tokenizer.json, any other type loads as PreTrainedTokenizerFast. */
export function tokenizerClassFor(modelType: string): string {
  return CLASS_BY_MODEL_TYPE.get(modelType) ?? 'PreTrainedTokenizerFast';
}

/** Special tokens' texts as tokenizer_config.json names them (`cls_token`, ...); absent ones are left out. */
export interface SpecialTokenTexts {
  cls?: string;
  sep?: string;
  pad?: string;
  mask?: string;
  unk?: string;
}

/**
 * A copied tokenizer_config.json made to stand alone: `tokenizer_class` named when the source names none, and each
 * special token the source leaves unsaid written from the tokenizer (padding needs pad_token), the rest kept.
 */
export function standaloneTokenizerConfig(
  source: Uint8Array | undefined,
  modelType: string,
  specials: SpecialTokenTexts,
): Uint8Array {
  let config: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  if (source) {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(source));
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) config = { ...parsed };
  }
  if (typeof config.tokenizer_class !== 'string' || config.tokenizer_class === '')
    config.tokenizer_class = tokenizerClassFor(modelType);
  for (const [name, text] of Object.entries(specials))
    if (text !== undefined && config[`${name}_token`] === undefined) config[`${name}_token`] = text;
  return new TextEncoder().encode(JSON.stringify(config, null, 2) + '\n');
}

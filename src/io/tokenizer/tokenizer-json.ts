// tokenizer.json tokenizers through @huggingface/tokenizers (normalizer, pre-tokenizer, model, added tokens);
// special tokens, truncation and padding are ours (tokenizer.ts), built from the file's post_processor.
import { Tokenizer } from '@huggingface/tokenizers';
import {
  createTemplateTokenizer,
  bertTemplate,
  requireTokenId,
  type SpecialTemplate,
  type TemplatePiece,
  type TextTokenizer,
} from './tokenizer.ts';

// tokenizer.json and tokenizer_config.json are free-form JSON whose fields are checked one by one where read.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

function templatePieces(raw: unknown, specialTokens: Json, where: string): TemplatePiece[] {
  if (!Array.isArray(raw)) throw new Error(`${where} is not a list`);
  return raw.map((piece: Json): TemplatePiece => {
    if (piece.Sequence) return { sequence: piece.Sequence.id === 'B' ? 'B' : 'A', typeId: piece.Sequence.type_id ?? 0 };
    if (piece.SpecialToken) {
      const ids = specialTokens[piece.SpecialToken.id]?.ids;
      if (!Array.isArray(ids)) throw new Error(`${where}: special token ${piece.SpecialToken.id} has no ids`);
      return { special: ids, typeId: piece.SpecialToken.type_id ?? 0 };
    }
    throw new Error(`${where}: unknown template piece ${JSON.stringify(piece)}`);
  });
}

/** The special-token template a post_processor describes (TemplateProcessing, BertProcessing, RobertaProcessing). */
function templateFromPostProcessor(processor: Json | null | undefined): SpecialTemplate {
  if (!processor)
    return {
      single: [{ sequence: 'A', typeId: 0 }],
      pair: [
        { sequence: 'A', typeId: 0 },
        { sequence: 'B', typeId: 1 },
      ],
    };
  switch (processor.type) {
    case 'TemplateProcessing':
      return {
        single: templatePieces(processor.single, processor.special_tokens ?? {}, 'post_processor.single'),
        pair: templatePieces(processor.pair, processor.special_tokens ?? {}, 'post_processor.pair'),
      };
    case 'BertProcessing':
      return bertTemplate(processor.cls[1], processor.sep[1]);
    case 'RobertaProcessing': {
      // <s> A </s> and <s> A </s></s> B </s>; RoBERTa models have a single token type, so every type id is 0.
      const [cls, sep] = [processor.cls[1], processor.sep[1]];
      return {
        single: [
          { special: [cls], typeId: 0 },
          { sequence: 'A', typeId: 0 },
          { special: [sep], typeId: 0 },
        ],
        pair: [
          { special: [cls], typeId: 0 },
          { sequence: 'A', typeId: 0 },
          { special: [sep, sep], typeId: 0 },
          { sequence: 'B', typeId: 0 },
          { special: [sep], typeId: 0 },
        ],
      };
    }
    case 'Sequence': {
      const inner = (processor.processors as Json[] | undefined)?.filter((p) => p.type !== 'ByteLevel') ?? [];
      if (inner.length > 1)
        throw new Error(`post_processor Sequence with ${inner.length} special-token processors is not supported`);
      return templateFromPostProcessor(inner[0]);
    }
    default:
      throw new Error(`post_processor type ${JSON.stringify(processor.type)} is not supported`);
  }
}

/** A token named in tokenizer_config.json, as a plain string or an AddedToken object. */
function configToken(config: Json, key: string): string | undefined {
  const value = config[key];
  if (typeof value === 'string') return value;
  if (value && typeof value.content === 'string') return value.content;
  return undefined;
}

export function createTokenizerJsonTokenizer(tokenizerJson: Json, tokenizerConfig: Json = {}): TextTokenizer {
  const library = new Tokenizer(tokenizerJson, tokenizerConfig);
  let vocabSize = 0;
  for (const id of library.get_vocab(true).values()) vocabSize = Math.max(vocabSize, id + 1);
  const tokenToId = (token: string) => library.token_to_id(token);
  const special = (role: string, key: string, defaults: string[]) =>
    requireTokenId(tokenToId, role, [configToken(tokenizerConfig, key), ...defaults]);
  return createTemplateTokenizer({
    contentIds: (text) => library.encode(text, { add_special_tokens: false }).ids,
    template: templateFromPostProcessor(tokenizerJson.post_processor),
    vocabSize,
    specialIds: {
      cls: special('CLS', 'cls_token', ['[CLS]', '<s>']),
      sep: special('SEP', 'sep_token', ['[SEP]', '</s>']),
      pad: special('padding', 'pad_token', ['[PAD]', '<pad>']),
      mask: special('mask', 'mask_token', ['[MASK]', '<mask>']),
      unk: tokenToId(configToken(tokenizerConfig, 'unk_token') ?? '[UNK]') ?? tokenToId('<unk>') ?? null,
    },
    idToToken: (id) => library.id_to_token(id),
    tokenToId,
    definition: tokenizerDefinition(tokenizerJson, tokenizerConfig),
  });
}

/** The parts of tokenizer.json and tokenizer_config.json that decide an encoding, as one canonical text. */
function tokenizerDefinition(tokenizerJson: Json, tokenizerConfig: Json): string {
  const { normalizer, pre_tokenizer, model, post_processor, added_tokens, truncation, padding } = tokenizerJson;
  const specials = ['cls_token', 'sep_token', 'pad_token', 'mask_token', 'unk_token'].map((key) =>
    configToken(tokenizerConfig, key),
  );
  return JSON.stringify([normalizer, pre_tokenizer, model, post_processor, added_tokens, truncation, padding, specials]);
}

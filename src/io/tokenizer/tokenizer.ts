// The tokenizer interface the app uses, and the part both implementations share: special-token templates,
// truncation exactly as Hugging Face's (content truncated, special tokens kept; longest-first for pairs), padding.

export interface SpecialIds {
  cls: number;
  sep: number;
  pad: number;
  mask: number;
  unk: number | null;
}

export interface EncodeOptions {
  /** Total length including special tokens; content is truncated to fit. */
  maxLength?: number;
  /** Second text of a pair. */
  pair?: string;
  /** Defaults to true. */
  addSpecialTokens?: boolean;
}

export interface Encoding {
  ids: number[];
  attentionMask: number[];
  typeIds: number[];
}

export interface TextTokenizer {
  /** Number of token ids (largest id + 1, added tokens included). */
  readonly vocabSize: number;
  readonly specialIds: SpecialIds;
  encode(text: string, options?: EncodeOptions): Encoding;
  /** Encodes each text; with `padToLongest`, right-pads with the pad id (attention mask 0, type id 0). */
  encodeBatch(texts: string[], options?: EncodeOptions & { padToLongest?: boolean }): Encoding[];
  idToToken(id: number): string | undefined;
  tokenToId(token: string): number | undefined;
  /**
   * The whole definition the encodings follow (normaliser, pre-tokeniser, model, post-processor, added and special
   * tokens), as canonical text for fingerprints; absent for a tokenizer that has none to give.
   */
  readonly definition?: string;
}

/** One piece of a post-processing template: a run of special ids, or the first (A) or second (B) sequence. */
export type TemplatePiece = { special: number[]; typeId: number } | { sequence: 'A' | 'B'; typeId: number };

export interface SpecialTemplate {
  single: TemplatePiece[];
  pair: TemplatePiece[];
}

/** [CLS] A [SEP] / [CLS] A [SEP] B [SEP] with type ids 0 / 1, as BERT's post-processor lays them out. */
export function bertTemplate(cls: number, sep: number): SpecialTemplate {
  return {
    single: [
      { special: [cls], typeId: 0 },
      { sequence: 'A', typeId: 0 },
      { special: [sep], typeId: 0 },
    ],
    pair: [
      { special: [cls], typeId: 0 },
      { sequence: 'A', typeId: 0 },
      { special: [sep], typeId: 0 },
      { sequence: 'B', typeId: 1 },
      { special: [sep], typeId: 1 },
    ],
  };
}

function specialTokenCount(pieces: TemplatePiece[]): number {
  return pieces.reduce((n, piece) => n + ('special' in piece ? piece.special.length : 0), 0);
}

/**
 * Hugging Face's longest-first truncation to `budget` content tokens. A single sequence keeps its first `budget`
 * tokens. For a pair, the shorter sequence stays whole when the longer one can take the rest of the budget;
 * otherwise each gets budget/2, the longer one taking the odd token.
 */
export function truncateLongestFirst(a: number[], b: number[] | null, budget: number): [number[], number[] | null] {
  if (b === null) return [a.slice(0, budget), null];
  if (a.length + b.length <= budget) return [a, b];
  const swap = a.length > b.length;
  let short = Math.min(a.length, b.length);
  let long = short > budget ? short : Math.max(short, budget - short);
  if (short + long > budget) {
    short = Math.floor(budget / 2);
    long = short + (budget % 2);
  }
  const [na, nb] = swap ? [long, short] : [short, long];
  return [a.slice(0, na), b.slice(0, nb)];
}

/** Turns content ids into a full encoding: truncation, then the template's special tokens and type ids. */
function assembleEncoding(template: SpecialTemplate, a: number[], b: number[] | null, options: EncodeOptions = {}): Encoding {
  const addSpecial = options.addSpecialTokens ?? true;
  const pieces = b === null ? template.single : template.pair;
  let [first, second] = [a, b];
  if (options.maxLength !== undefined) {
    const specials = addSpecial ? specialTokenCount(pieces) : 0;
    if (!Number.isInteger(options.maxLength) || options.maxLength < specials) {
      throw new Error(`maxLength ${options.maxLength} leaves no room: the tokenizer adds ${specials} special tokens`);
    }
    [first, second] = truncateLongestFirst(a, b, options.maxLength - specials);
  }
  const ids: number[] = [];
  const typeIds: number[] = [];
  const push = (run: number[], typeId: number) => {
    for (const id of run) {
      ids.push(id);
      typeIds.push(typeId);
    }
  };
  if (!addSpecial) {
    push(first, 0);
    if (second) push(second, pieces.find((p) => 'sequence' in p && p.sequence === 'B')?.typeId ?? 1);
  } else {
    for (const piece of pieces) {
      if ('special' in piece) push(piece.special, piece.typeId);
      else push(piece.sequence === 'A' ? first : (second ?? []), piece.typeId);
    }
  }
  return { ids, attentionMask: ids.map(() => 1), typeIds };
}

export function padToLongest(encodings: Encoding[], padId: number): Encoding[] {
  const longest = Math.max(0, ...encodings.map((e) => e.ids.length));
  return encodings.map((e) => {
    const extra = longest - e.ids.length;
    return {
      ids: [...e.ids, ...new Array<number>(extra).fill(padId)],
      attentionMask: [...e.attentionMask, ...new Array<number>(extra).fill(0)],
      typeIds: [...e.typeIds, ...new Array<number>(extra).fill(0)],
    };
  });
}

/** A TextTokenizer from a function that splits text into content ids (no special tokens) plus a template. */
export function createTemplateTokenizer(parts: {
  contentIds(text: string): number[];
  template: SpecialTemplate;
  vocabSize: number;
  specialIds: SpecialIds;
  idToToken(id: number): string | undefined;
  tokenToId(token: string): number | undefined;
  definition?: string;
}): TextTokenizer {
  const tokenizer: TextTokenizer = {
    definition: parts.definition,
    vocabSize: parts.vocabSize,
    specialIds: parts.specialIds,
    idToToken: parts.idToToken,
    tokenToId: parts.tokenToId,
    encode(text, options = {}) {
      const pair = options.pair === undefined ? null : parts.contentIds(options.pair);
      return assembleEncoding(parts.template, parts.contentIds(text), pair, options);
    },
    encodeBatch(texts, options = {}) {
      const encodings = texts.map((text) => tokenizer.encode(text, options));
      return options.padToLongest ? padToLongest(encodings, parts.specialIds.pad) : encodings;
    },
  };
  return tokenizer;
}

/** Finds the id of the first candidate token that exists; throws naming all candidates when none does. */
export function requireTokenId(
  tokenToId: (token: string) => number | undefined,
  role: string,
  candidates: (string | undefined)[],
): number {
  for (const token of candidates) {
    const id = token === undefined ? undefined : tokenToId(token);
    if (id !== undefined) return id;
  }
  throw new Error(`the tokenizer has no ${role} token (looked for ${candidates.filter(Boolean).join(', ')})`);
}

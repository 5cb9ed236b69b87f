// What the expansion audit says, for the page and the CLI: of one text (each active term, its weight, whether it is
// one of the text's own tokens, the input token whose logit won the max pooling), of a corpus (where the weight goes),
// and of two encodings of the same texts compared (terms gained and lost, each text's change).

export interface AuditedTerm {
  id: number;
  term: string;
  weight: number;
  /** Not one of the text's own token ids (special tokens count as the text's own). */
  expansion: boolean;
  /** The token position whose logit won the max (0 is the first token, [CLS] for BERT), and its piece. */
  position: number;
  piece: string;
}

export interface TextAudit {
  text: string;
  k: number;
  /** The text's tokens as the model saw them (truncated to the length asked, special tokens included). */
  tokens: string[];
  /** Every active term, heaviest first. */
  terms: AuditedTerm[];
  /** Share of the vector's summed weight on expansion terms. */
  expansionShare: number;
}

/** Every piece has exactly one kind: a "##12" piece is a number, not a subword piece; a [SEP] is special. */
export const PIECE_KINDS = ['special', 'number', 'stopWord', 'subword', 'word'] as const;

export type PieceKind = (typeof PIECE_KINDS)[number];

export const TERM_ORIGINS = ['input', 'expansion'] as const;

export type TermOrigin = (typeof TERM_ORIGINS)[number];

export interface CategoryFigures {
  /** The category's share of the corpus's summed weight, and of its active dimensions. */
  weightShare: number;
  dimsShare: number;
  /** Summed weight and active dimensions per audited document, on average. */
  meanWeight: number;
  meanDims: number;
}

export interface KindFigures extends CategoryFigures {
  /** Share of the kind's weight on expansion terms (0 when it has none). */
  expansionShare: number;
}

export interface FrequentExpansion {
  term: string;
  /** Documents in which the term is an expansion, and its mean weight there. */
  documents: number;
  meanWeight: number;
}

export interface WidespreadTerm {
  term: string;
  /** Documents in which the term is active, that count over the documents audited, its mean weight there. */
  documents: number;
  share: number;
  meanWeight: number;
  /** Of those documents, the ones in which it is an expansion. */
  asExpansion: number;
}

export interface CorpusAudit {
  k: number;
  /** Documents audited, and blank ones left out. */
  documents: number;
  skipped: number;
  meanActiveDims: number;
  meanWeight: number;
  /** How the vocabulary marks subword pieces, and which stop words are counted. */
  subwordMarking: string;
  stopWords: string;
  origins: Record<TermOrigin, CategoryFigures>;
  kinds: Record<PieceKind, KindFigures>;
  /** Terms that are expansions in the most documents, then terms active in the most (stop-list candidates). */
  frequentExpansions: FrequentExpansion[];
  widespreadTerms: WidespreadTerm[];
}

export interface TermChange {
  term: string;
  /** Texts in which the term was gained (or lost), its weight summed over them, and that sum per text. */
  texts: number;
  mass: number;
  meanWeight: number;
}

export interface TextChange {
  /** The text, or its document id. */
  label: string;
  activeDims: number;
  againstActiveDims: number;
  dimsChange: number;
  flops: number;
  againstFlops: number;
  flopsChange: number;
}

export interface AuditDiff {
  texts: number;
  /** Distinct terms gained and lost over all the texts (the lists hold the heaviest). */
  gainedTerms: number;
  lostTerms: number;
  meanDimsChange: number;
  meanFlopsChange: number;
  /** Active in the second side's vector of a text but not in the first's (weights of the second), heaviest first. */
  gained: TermChange[];
  /** Active in the first side's vector of a text but not in the second's (weights of the first), heaviest first. */
  lost: TermChange[];
  perText: TextChange[];
}

/** One side of the page's comparison: the loaded model at a k, or a stored run's trained model (its k built in). */
export type AuditSide = { kind: 'loaded'; k: number } | { kind: 'run'; id: string };

/** Texts the page audits at once (one per line), and tokens per text. */
export const AUDIT_LIMITS = { texts: 200, maxLength: 128 } as const;

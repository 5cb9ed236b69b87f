// What the expansion audit says of one text, for the page and the CLI: each active term, its weight, whether it is one
// of the text's own tokens, and the input token whose logit won the max pooling.

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

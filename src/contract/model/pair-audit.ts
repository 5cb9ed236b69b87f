// The expansion audit of a query-document pair: the terms both vectors hold, each with its product (its share of the
// score s(q, d) = v_q · v_d) and, on each side, whether it is an input term or an expansion and which token caused it.
import type { AuditedTerm, TextAudit } from './expansion-audit.ts';

/** One side's view of a shared term: its weight there, input term or expansion, and the token whose logit won. */
export type SideOfTerm = Pick<AuditedTerm, 'weight' | 'expansion' | 'position' | 'piece'>;

export interface SharedTerm {
  id: number;
  term: string;
  /** query weight x document weight: what the term adds to the score. */
  product: number;
  query: SideOfTerm;
  document: SideOfTerm;
}

export interface PairAudit {
  query: TextAudit;
  document: TextAudit;
  /** The sum of the shared terms' products: the pair's score. */
  score: number;
  /** Shares of the score from terms that are expansions in the query, in the document, and in both. */
  expansionShares: { query: number; document: number; both: number };
  /** Every shared term, largest product first. */
  shared: SharedTerm[];
}

function sideOf(term: AuditedTerm): SideOfTerm {
  return { weight: term.weight, expansion: term.expansion, position: term.position, piece: term.piece };
}

/** Joins a query's audit and a document's audit (the same model and k) on their shared terms. */
export function auditPair(query: TextAudit, document: TextAudit): PairAudit {
  const inDocument = new Map(document.terms.map((t) => [t.id, t]));
  const shared: SharedTerm[] = [];
  for (const q of query.terms) {
    const d = inDocument.get(q.id);
    if (d) shared.push({ id: q.id, term: q.term, product: q.weight * d.weight, query: sideOf(q), document: sideOf(d) });
  }
  shared.sort((a, b) => b.product - a.product || a.id - b.id);
  const score = shared.reduce((sum, t) => sum + t.product, 0);
  const shareOf = (keep: (t: SharedTerm) => boolean) =>
    score > 0 ? shared.reduce((sum, t) => sum + (keep(t) ? t.product : 0), 0) / score : 0;
  return {
    query,
    document,
    score,
    expansionShares: {
      query: shareOf((t) => t.query.expansion),
      document: shareOf((t) => t.document.expansion),
      both: shareOf((t) => t.query.expansion && t.document.expansion),
    },
    shared,
  };
}

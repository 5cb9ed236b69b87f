// Two SPLADE encodings of the same texts compared (two models, or one model at two k): the terms the second gains and
// loses, summed over the texts, and per text the change in active dimensions and in FLOPS (Σ_v w_v², the training
// FLOPS regulariser Σ_v (mean_i w_iv)² on a batch of that one text). Terms are matched by their piece, so two models
// with different vocabularies compare too.
import type { AuditDiff, TermChange, TextChange } from '../../contract/expansion-audit.ts';
import type { SparseVector } from '../../util/sparse-vector.ts';

/** The vectors of the texts from one side, and the vocabulary that names their ids. */
export interface EncodedSide {
  vectors: readonly SparseVector[];
  vocab: readonly string[];
}

export type { AuditDiff, TermChange, TextChange };

/** Weight of each term of a vector, by piece. */
function termWeights(vector: SparseVector, vocab: readonly string[]): Map<string, number> {
  return new Map(Array.from(vector.indices, (id, j) => [vocab[id] ?? `[id ${id}]`, vector.values[j]]));
}

/** Sums, per term, the weights `from` has where `other` has no such term. */
class MissingTerms {
  private readonly texts = new Map<string, number>();
  private readonly mass = new Map<string, number>();

  add(from: Map<string, number>, other: Map<string, number>): void {
    for (const [term, weight] of from) {
      if (other.has(term)) continue;
      this.texts.set(term, (this.texts.get(term) ?? 0) + 1);
      this.mass.set(term, (this.mass.get(term) ?? 0) + weight);
    }
  }

  get size(): number {
    return this.texts.size;
  }

  /** The heaviest `top` terms (0: all) by summed weight (then by term). */
  heaviest(top: number): TermChange[] {
    const changes = [...this.mass].map(([term, mass]) => {
      const texts = this.texts.get(term)!;
      return { term, texts, mass, meanWeight: mass / texts };
    });
    changes.sort((a, b) => b.mass - a.mass || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
    return top > 0 ? changes.slice(0, top) : changes;
  }
}

function squaredSum(vector: SparseVector): number {
  return vector.values.reduce((total, w) => total + w * w, 0);
}

/** Compares `against` with `base` on the same texts (`labels` name them); `top` rows per term list (0: all). */
export function diffEncodings(labels: readonly string[], base: EncodedSide, against: EncodedSide, top: number): AuditDiff {
  if (base.vectors.length !== labels.length || against.vectors.length !== labels.length)
    throw new Error(`diffEncodings: ${labels.length} texts, but ${base.vectors.length} and ${against.vectors.length} vectors`);
  const gained = new MissingTerms();
  const lost = new MissingTerms();
  const perText = labels.map((label, i) => {
    const [a, b] = [base.vectors[i], against.vectors[i]];
    const [termsA, termsB] = [termWeights(a, base.vocab), termWeights(b, against.vocab)];
    gained.add(termsB, termsA);
    lost.add(termsA, termsB);
    const [flops, againstFlops] = [squaredSum(a), squaredSum(b)];
    return {
      label,
      activeDims: a.indices.length,
      againstActiveDims: b.indices.length,
      dimsChange: b.indices.length - a.indices.length,
      flops,
      againstFlops,
      flopsChange: againstFlops - flops,
    };
  });
  const mean = (pick: (change: TextChange) => number) =>
    perText.length ? perText.reduce((total, change) => total + pick(change), 0) / perText.length : 0;
  return {
    texts: labels.length,
    gainedTerms: gained.size,
    lostTerms: lost.size,
    meanDimsChange: mean((c) => c.dimsChange),
    meanFlopsChange: mean((c) => c.flopsChange),
    gained: gained.heaviest(top),
    lost: lost.heaviest(top),
    perText,
  };
}

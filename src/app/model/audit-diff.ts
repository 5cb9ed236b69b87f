// Two SPLADE encodings of the same texts compared (two models, or one model at two k): the terms the second gains and
// loses, summed over the texts, and per text the change in active dimensions and in FLOPS (Σ_v w_v², the training
// FLOPS regulariser Σ_v (mean_i w_iv)² on a batch of that one text). Terms are matched by their piece, so two models
// with different vocabularies compare too.
import type { AuditDiff, TermChange, TextChange } from '../../contract/model/expansion-audit.ts';
import type { SparseVector } from '../../util/sparse-vector.ts';
import type { EncodeRequest } from '../../contract/model/model-requests.ts';

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

/**
 * A comparison built text by text: what it holds is the summed weights of the terms gained and lost (bounded by the
 * vocabularies) and one row of numbers per text, never the vectors, so its texts may come a chunk at a time.
 */
export class AuditDiffBuilder {
  private readonly gained = new MissingTerms();
  private readonly lost = new MissingTerms();
  private readonly perText: TextChange[] = [];

  /** Adds one text: its vector on the base side (named by `baseVocab`) and on the other side. */
  add(label: string, a: SparseVector, baseVocab: readonly string[], b: SparseVector, againstVocab: readonly string[]): void {
    const [termsA, termsB] = [termWeights(a, baseVocab), termWeights(b, againstVocab)];
    this.gained.add(termsB, termsA);
    this.lost.add(termsA, termsB);
    const [flops, againstFlops] = [squaredSum(a), squaredSum(b)];
    this.perText.push({
      label,
      activeDims: a.indices.length,
      againstActiveDims: b.indices.length,
      dimsChange: b.indices.length - a.indices.length,
      flops,
      againstFlops,
      flopsChange: againstFlops - flops,
    });
  }

  /** The comparison of the texts added so far; `top` rows per term list (0: all). */
  result(top: number): AuditDiff {
    const perText = this.perText;
    const mean = (pick: (change: TextChange) => number) =>
      perText.length ? perText.reduce((total, change) => total + pick(change), 0) / perText.length : 0;
    return {
      texts: perText.length,
      gainedTerms: this.gained.size,
      lostTerms: this.lost.size,
      meanDimsChange: mean((c) => c.dimsChange),
      meanFlopsChange: mean((c) => c.flopsChange),
      gained: this.gained.heaviest(top),
      lost: this.lost.heaviest(top),
      perText: [...perText],
    };
  }
}

/** Compares `against` with `base` on the same texts (`labels` name them); `top` rows per term list (0: all). */
export function diffEncodings(labels: readonly string[], base: EncodedSide, against: EncodedSide, top: number): AuditDiff {
  if (base.vectors.length !== labels.length || against.vectors.length !== labels.length)
    throw new Error(`diffEncodings: ${labels.length} texts, but ${base.vectors.length} and ${against.vectors.length} vectors`);
  const builder = new AuditDiffBuilder();
  labels.forEach((label, i) => builder.add(label, base.vectors[i], base.vocab, against.vectors[i], against.vocab));
  return builder.result(top);
}

/** What a side of a streamed comparison needs of a model session: its encoder and its vocabulary. */
export interface ComparedEncoder {
  encode(texts: readonly string[], request: EncodeRequest): Promise<SparseVector[]>;
  vocabulary(): readonly string[];
}

export interface CompareOptions {
  /** Texts encoded on each side at a time (default 64): with the sums, all that is held. */
  chunk?: number;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Compares `texts` encoded by `base` (at `baseRequest`) and by `against` (at `againstRequest`; the same session at
 * another k, or a second model), a chunk of texts at a time: each chunk's vectors are added and dropped before the
 * next is encoded, so the memory held does not grow with the number of texts beyond one row of numbers per text.
 */
export async function compareInChunks(
  labels: readonly string[],
  texts: readonly string[],
  sides: [ComparedEncoder, EncodeRequest, ComparedEncoder, EncodeRequest],
  options: CompareOptions = {},
): Promise<AuditDiffBuilder> {
  const [base, baseRequest, against, againstRequest] = sides;
  const chunk = options.chunk ?? 64;
  const [baseVocab, againstVocab] = [base.vocabulary(), against.vocabulary()];
  const builder = new AuditDiffBuilder();
  for (let start = 0; start < texts.length; start += chunk) {
    const part = texts.slice(start, start + chunk);
    const a = await base.encode(part, baseRequest);
    const b = await against.encode(part, againstRequest);
    part.forEach((_, i) => builder.add(labels[start + i], a[i], baseVocab, b[i], againstVocab));
    options.onProgress?.(start + part.length, texts.length);
  }
  return builder;
}

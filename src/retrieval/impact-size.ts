// Index size estimates of impact-quantised posting lists, under the two models IMPACT_SIZE_MODELS states: Anserini's
// round(scale * w) impacts and Lucene-style 8-bit impacts, each posting a VInt document gap plus its impact.
import { IMPACT_SIZE_MODELS, type ImpactIndexSize } from '../contract/index-stats.ts';
import { anseriniImpact, type Vocabulary } from './exports.ts';
import type { SparseVector } from '../util/sparse-vector.ts';

/** Bytes of Lucene's DataOutput.writeVInt(n): 7 bits a byte; a negative int takes 5, as Lucene writes it. */
export function vintBytes(n: number): number {
  let rest = n >>> 0;
  let bytes = 1;
  while (rest >= 0x80) {
    rest >>>= 7;
    bytes++;
  }
  return bytes;
}

/** For each id, the first id with the same token string: Anserini indexes tokens, so such ids share one list. */
function tokenKeys(vocab: Vocabulary): Uint32Array {
  const first = new Map<string, number>();
  return Uint32Array.from(vocab, (token, id) => {
    if (!first.has(token)) first.set(token, id);
    return first.get(token)!;
  });
}

/**
 * Postings and bytes of `documents` quantised by the export rule (token -> the summed anseriniImpact of its ids, 0
 * dropped): each posting costs VInt(gap to the list's previous document; the first, its document number) plus
 * `impactBytes(q)`. Flat arrays over the vocabulary, so that dense vectors of a large vocabulary stay fast.
 */
function quantisedSize(
  documents: readonly SparseVector[],
  vocab: Vocabulary,
  scale: number,
  impactBytes: (impact: number) => number,
): { postings: number; bytes: number } {
  const keys = tokenKeys(vocab); // (V,)
  const lastDoc = new Float64Array(vocab.length); // (V,) by key
  const impacts = new Float64Array(vocab.length); // (V,) by key, this document's summed impacts
  const seenIn = new Float64Array(vocab.length).fill(-1); // (V,) by key, the last document that touched it
  const touched: number[] = [];
  let postings = 0;
  let bytes = 0;
  documents.forEach((vector, d) => {
    touched.length = 0;
    for (let i = 0; i < vector.indices.length; i++) {
      const id = vector.indices[i];
      if (id >= keys.length) throw new Error(`document ${d}: vocabulary has no token for id ${id} (size ${vocab.length})`);
      const key = keys[id];
      if (seenIn[key] !== d) {
        seenIn[key] = d;
        impacts[key] = 0;
        touched.push(key);
      }
      impacts[key] += anseriniImpact(vector.values[i], scale);
    }
    for (const key of touched) {
      if (impacts[key] === 0) continue;
      bytes += vintBytes(d - lastDoc[key]) + impactBytes(impacts[key]);
      lastDoc[key] = d;
      postings++;
    }
  });
  return { postings, bytes };
}

/** The index as Anserini's impact format holds it (`encode --format anserini`'s quantisation). */
export function anseriniIndexSize(documents: readonly SparseVector[], vocab: Vocabulary, scale: number): ImpactIndexSize {
  return { model: IMPACT_SIZE_MODELS.anserini, scale, ...quantisedSize(documents, vocab, scale, vintBytes) };
}

/** The index with 8-bit impacts: weights mapped to 0..255 by the largest document weight, one byte each. */
export function byteImpactIndexSize(documents: readonly SparseVector[], vocab: Vocabulary): ImpactIndexSize {
  let maxWeight = 0;
  for (const vector of documents) for (const w of vector.values) maxWeight = Math.max(maxWeight, w);
  const scale = maxWeight > 0 ? 255 / maxWeight : 0;
  return { model: IMPACT_SIZE_MODELS.byte, scale, ...quantisedSize(documents, vocab, scale, () => 1) };
}

// Anserini's formats: JsonVectorCollection document lines {"id", "contents", "vector": {token: impact}} and impact
// queries, each weight quantised to the integer impact round(scale * w). Anserini indexes a vector as a pseudo-document
// repeating each token `impact` times, split on white space (castorini/anserini,
// src/main/java/io/anserini/collection/JsonVectorCollection.java): ids spelling one token add up as repeated words
// would, and a token holding white space cannot be written (it would be split into other words).
import { tokenOf, type Vocabulary } from './engine-names.ts';
import { weightsObjectText } from './weights-json.ts';
import type { SparseVector } from '../util/sparse-vector.ts';

export type { Vocabulary } from './engine-names.ts';

/** Anserini's impact of a weight: round(scale * w); an entry whose impact is 0 is left out. */
export function anseriniImpact(weight: number, scale = 100): number {
  return Math.round(scale * weight);
}

/** A vector's Anserini impacts by token, with what could not be written as it is. */
export interface AnseriniImpacts {
  /** token -> summed impact, in the vector's id order; impacts of 0 left out. */
  impacts: Map<string, number>;
  /** Tokens holding white space, left out. */
  whitespace: string[];
  /** Tokens that several ids of the vector spell: their impacts were added, as Anserini adds repeated words. */
  merged: string[];
}

export function anseriniImpacts(vector: SparseVector, vocab: Vocabulary, scale = 100): AnseriniImpacts {
  const result: AnseriniImpacts = { impacts: new Map(), whitespace: [], merged: [] };
  for (let i = 0; i < vector.indices.length; i++) {
    const impact = anseriniImpact(vector.values[i], scale);
    if (impact === 0) continue;
    const token = tokenOf(vocab, vector.indices[i]);
    if (/\s/.test(token)) {
      result.whitespace.push(token);
      continue;
    }
    const before = result.impacts.get(token);
    if (before !== undefined) result.merged.push(token);
    const sum = (before ?? 0) + impact;
    if (sum === 0) result.impacts.delete(token);
    else result.impacts.set(token, sum);
  }
  return result;
}

/** One line of an Anserini JsonVectorCollection, with the impacts it was built from (and what they left out). */
export function anseriniDocument(
  id: string,
  vector: SparseVector,
  vocab: Vocabulary,
  options: { scale?: number; contents?: string } = {},
): AnseriniImpacts & { line: string } {
  const impacts = anseriniImpacts(vector, vocab, options.scale);
  const vectorText = weightsObjectText(impacts.impacts, String);
  return {
    ...impacts,
    line: `{"id":${JSON.stringify(id)},"contents":${JSON.stringify(options.contents ?? '')},"vector":${vectorText}}`,
  };
}

/** One line of an Anserini JsonVectorCollection: {"id", "contents", "vector": {token: int}}. */
export function anseriniDocumentLine(
  id: string,
  vector: SparseVector,
  vocab: Vocabulary,
  options: { scale?: number; contents?: string } = {},
): string {
  return anseriniDocument(id, vector, vocab, options).line;
}

/** An Anserini impact query (TSV "qid<TAB>tokens"): each token repeated round(scale * w) times, as naver/splade writes them. */
export function anseriniQueryLine(id: string, vector: SparseVector, vocab: Vocabulary, scale = 100): string {
  const { impacts, whitespace } = anseriniImpacts(vector, vocab, scale);
  if (whitespace.length)
    throw new Error(`query ${id}: token "${whitespace[0]}" contains white space and cannot be written as a word`);
  const words: string[] = [];
  for (const [token, count] of impacts) for (let c = 0; c < count; c++) words.push(token);
  return `${id}\t${words.join(' ')}`;
}

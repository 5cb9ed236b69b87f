// A text's sparse vector as people read it: top terms by weight, expansion terms marked, special pieces ([CLS], [SEP],
// [unusedN]) flagged so that lists can show them apart, active dimensions.
import { SparseSummary } from '../../contract/model/model-results.ts';
import { isSpecialPiece } from './piece-kinds.ts';
import type { TextTokenizer } from '../../io/tokenizer/tokenizer.ts';
import type { SparseVector } from '../../util/sparse-vector.ts';

export function summarizeSparse(text: string, vector: SparseVector, tokenizer: TextTokenizer, topTerms: number): SparseSummary {
  const ids = tokenizer.encode(text, { addSpecialTokens: false }).ids;
  const own = new Set(ids);
  const order = Array.from(vector.indices.keys()).sort(
    (a, b) => vector.values[b] - vector.values[a] || vector.indices[a] - vector.indices[b],
  );
  const terms = order.slice(0, topTerms).map((i) => {
    const id = vector.indices[i];
    const term = tokenizer.idToToken(id) ?? `[id ${id}]`;
    const special = isSpecialPiece(term, id, tokenizer.specialIds);
    return { term, id, weight: vector.values[i], expansion: !own.has(id), ...(special ? { special } : {}) };
  });
  return { text, tokens: ids.map((id) => tokenizer.idToToken(id) ?? `[id ${id}]`), activeDims: vector.indices.length, terms };
}

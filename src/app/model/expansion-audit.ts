// The expansion audit of a text: every active term of its SPLADE vector with its weight, whether it is one of the
// text's own tokens or an expansion, and the input token whose logit won the max pooling (exact: max pooling keeps
// one position per vocabulary id), with the share of the vector's weight that goes to expansions.
import type { EncodeRequest } from '../../contract/model-requests.ts';
import type { ModelSession } from './model-session.ts';
import type { TextAudit } from '../../contract/expansion-audit.ts';

export type { AuditedTerm, TextAudit } from '../../contract/expansion-audit.ts';

/** Audits each text under `request.k` (its length and top-k pruning as encode's). */
export async function auditTexts(session: ModelSession, texts: readonly string[], request: EncodeRequest): Promise<TextAudit[]> {
  const encoded = await session.encodeWithOrigins(texts, request);
  const vocab = session.vocabulary();
  const name = (id: number) => vocab[id] ?? `[id ${id}]`;
  const maxLength = session.fittedLength(request.maxLength);
  return texts.map((text, i) => {
    const { vector, origins } = encoded[i];
    const ids = session.model.tokenizer.encode(text, { maxLength }).ids;
    const own = new Set(ids);
    const terms = Array.from(vector.indices, (id, j) => ({
      id,
      term: name(id),
      weight: vector.values[j],
      expansion: !own.has(id),
      position: origins[j],
      piece: name(ids[origins[j]]),
    })).sort((a, b) => b.weight - a.weight || a.id - b.id);
    const total = terms.reduce((sum, t) => sum + t.weight, 0);
    const expanded = terms.reduce((sum, t) => sum + (t.expansion ? t.weight : 0), 0);
    return { text, k: request.k, tokens: ids.map(name), terms, expansionShare: total > 0 ? expanded / total : 0 };
  });
}

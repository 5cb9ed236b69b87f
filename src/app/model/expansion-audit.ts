// The expansion audit of a text: every active term of its SPLADE vector with its weight, whether it is one of the
// text's own tokens or an expansion, and the input token whose logit won the max pooling (exact: max pooling keeps
// one position per vocabulary id), with the share of the vector's weight that goes to expansions; a query of an
// inference-free model is audited as what it is, its own tokens looked up in the static table.
import type { EncodeRequest } from '../../contract/model/model-requests.ts';
import type { ModelSession } from './model-session.ts';
import type { TextAudit } from '../../contract/model/expansion-audit.ts';
import type { EncodedWithOrigins } from '../../model/splade-encoder.ts';

export type { AuditedTerm, TextAudit } from '../../contract/model/expansion-audit.ts';

/** Audits each text under `request.k` (its length and top-k pruning as encode's). */
export async function auditTexts(session: ModelSession, texts: readonly string[], request: EncodeRequest): Promise<TextAudit[]> {
  const encoded = await session.encodeWithOrigins(texts, request);
  const name = namer(session);
  const maxLength = session.fittedLength(request.maxLength);
  return texts.map((text, i) =>
    auditOf(text, request.k, encoded[i], session.model.tokenizer.encode(text, { maxLength }).ids, name),
  );
}

export interface AuditStreamOptions {
  /** Texts per call to the encoder (default AUDIT_CHUNK): all that is held at once. */
  chunk?: number;
  /** After each chunk: texts audited so far, of all. */
  onProgress?: (done: number, total: number) => void;
}

/** Texts audited at a time by streamTextAudits: their vectors, origins and audits are all it holds. */
export const AUDIT_CHUNK = 64;

/**
 * Audits `texts` a chunk at a time and hands each audit to `onAudit` in text order, keeping none: what is held at
 * once is one chunk's vectors and audits, whatever the number of texts (a dense model's audit holds every vocabulary
 * id as a term: 10,000 texts of a 30k vocabulary kept to the end took 2.5 GB).
 */
export async function streamTextAudits(
  session: ModelSession,
  texts: readonly string[],
  request: EncodeRequest,
  onAudit: (audit: TextAudit, index: number) => void | Promise<void>,
  options: AuditStreamOptions = {},
): Promise<void> {
  const chunk = options.chunk ?? AUDIT_CHUNK;
  for (let start = 0; start < texts.length; start += chunk) {
    const audits = await auditTexts(session, texts.slice(start, start + chunk), request);
    for (let i = 0; i < audits.length; i++) await onAudit(audits[i], start + i);
    options.onProgress?.(Math.min(start + chunk, texts.length), texts.length);
  }
}

/** Audits queries as retrieval encodes them: an inference-free model's terms are its tokens, each from its first place. */
export async function auditQueries(
  session: ModelSession,
  texts: readonly string[],
  request: EncodeRequest,
): Promise<TextAudit[]> {
  if (!session.inferenceFree) return auditTexts(session, texts, request);
  const vectors = await session.encodeQueries(texts, request);
  const name = namer(session);
  return texts.map((text, i) => {
    const ids = session.staticQueryIds(text);
    const origins = Uint32Array.from(vectors[i].indices, (id) => ids.indexOf(id));
    return auditOf(text, request.k, { vector: vectors[i], origins }, ids, name);
  });
}

function namer(session: ModelSession): (id: number) => string {
  const vocab = session.vocabulary();
  return (id) => vocab[id] ?? `[id ${id}]`;
}

/** A text's audit from its vector, each active dimension's winning position, and its token ids. */
function auditOf(
  text: string,
  k: number,
  { vector, origins }: EncodedWithOrigins,
  ids: number[],
  name: (id: number) => string,
): TextAudit {
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
  return { text, k, tokens: ids.map(name), terms, expansionShare: total > 0 ? expanded / total : 0 };
}

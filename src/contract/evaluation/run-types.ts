// Relevance judgments and runs keyed by string ids, the shapes trec_eval reads from qrels and run files.

/** Query id -> document id -> relevance grade (0 = judged not relevant; negative = in the pool but unjudged). */
export type Qrels = Map<string, Map<string, number>>;

/** Query id -> document id -> retrieval score (higher is better). */
export type Run = Map<string, Map<string, number>>;

/** Adds one judgment or score, refusing a second entry for the same (query, document) pair. */
export function addToNested(
  target: Map<string, Map<string, number>>,
  queryId: string,
  docId: string,
  value: number,
  where: string,
): void {
  let inner = target.get(queryId);
  if (!inner) target.set(queryId, (inner = new Map()));
  if (inner.has(docId)) throw new Error(`${where}: document "${docId}" appears twice for query "${queryId}"`);
  inner.set(docId, value);
}

// The page's evaluation results in IndexedDB (idb-keyval), one per model + k + set + lengths + pruning, so that a
// reload shows them again; written whole, read back per model.
import { createStore, entries, set, type UseStore } from 'idb-keyval';
import type { SetEvaluation } from '../../contract/evaluation/results.ts';

let store: UseStore | null = null;

function evaluations(): UseStore {
  store ??= createStore('splade-lab-evaluations', 'evaluations');
  return store;
}

/** What makes two evaluations the same: model weights, k, set, lengths, pruning and depth. */
export function evaluationKey(e: Pick<SetEvaluation, 'model' | 'set' | 'request'>): string {
  const r = e.request;
  return `${e.model.key} | ${e.set.name} | k = ${r.k} | lengths ${r.queryLength}/${r.documentLength} | prune ${r.prune} | top ${r.topK}`;
}

/** Stores (or replaces) one evaluation; a full storage is an error that says the results are shown but not kept. */
export async function saveEvaluation(evaluation: SetEvaluation): Promise<void> {
  try {
    await set(evaluationKey(evaluation), evaluation, evaluations());
  } catch (error) {
    if ((error as { name?: string } | null)?.name !== 'QuotaExceededError') throw error;
    throw new Error(
      `The browser's storage is full: the results on ${evaluation.set.name} are shown but will not be there after a reload.`,
      { cause: error },
    );
  }
}

/** The stored evaluations of one model (its weights' key), newest first. */
export async function listEvaluations(modelKey: string): Promise<SetEvaluation[]> {
  const all = (await entries<string, SetEvaluation>(evaluations())).map(([, value]) => value);
  return all.filter((e) => e.model.key === modelKey).sort((a, b) => b.evaluatedAt.localeCompare(a.evaluatedAt));
}

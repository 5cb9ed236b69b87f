// The worker's evaluation calls: reading retrieval sets, evaluating the loaded model (kept per model in IndexedDB) or
// finished runs' models, and looking inside the last evaluated set (search, documents, differences).
import { filesFingerprint, openDataset, summarizeDataset, type DatasetRef } from '../app/evaluation/datasets.ts';
import { EVAL_PAGE_MEMORY_BUDGET } from '../contract/evaluation/evaluation-memory.ts';
import { evaluateOnSet, type SetEvaluation } from '../app/evaluation/evaluate-on-set.ts';
import { listEvaluations, saveEvaluation } from '../app/platform/evaluation-store-idb.ts';
import { browserPlatform } from '../app/platform/platform-browser.ts';
import { evaluateRun } from '../app/evaluation/trained-model-evaluation.ts';
import type { DatasetSource, WorkerApi } from './api.ts';
import { publishEvaluatedSet } from '../app/evaluation/publish-evaluated.ts';
import { fetchSearchRuntime } from '../app/evaluation/publish-runtime-browser.ts';
import type { WorkerState } from './state.ts';

function datasetRef(source: DatasetSource): DatasetRef {
  if (source.kind === 'nanobeir') return { kind: 'nanobeir', set: source.set, hubUrl: source.hubUrl };
  return { kind: 'beir', files: { kind: 'files', files: source.files }, name: source.name };
}

type EvaluationMethods = Pick<
  WorkerApi,
  | 'openDataset'
  | 'evaluate'
  | 'savedEvaluations'
  | 'evaluateRuns'
  | 'search'
  | 'document'
  | 'auditPair'
  | 'differences'
  | 'evaluatedQueries'
  | 'evaluatedDocuments'
  | 'exportEvaluated'
  | 'indexEstimate'
  | 'publishEvaluated'
>;

export function evaluationMethods(state: WorkerState): EvaluationMethods {
  return {
    async openDataset(source, onProgress) {
      const signal = state.startCancellable();
      const named =
        source.kind === 'files' ? { ...source, name: `${source.name} #${await filesFingerprint(source.files)}` } : source;
      const dataset = await openDataset(browserPlatform, datasetRef(named), {
        signal,
        onProgress: (p) => onProgress({ stage: 'download', ...p }),
      });
      state.datasets.set(dataset.name, dataset);
      return summarizeDataset(dataset);
    },
    async evaluate(request, onProgress) {
      return state.job(async (signal) => {
        const session = state.loadedSession();
        const sets = request.sets.map((name) => state.dataset(name));
        const results: SetEvaluation[] = [];
        state.evaluated = null;
        for (const [setIndex, dataset] of sets.entries()) {
          const { result, kept } = await evaluateOnSet(
            session,
            dataset,
            { ...request, search: 'exhaustive' },
            {
              signal,
              bm25: true,
              memoryBudget: EVAL_PAGE_MEMORY_BUDGET,
              onProgress: (stage, done, total) =>
                onProgress({ set: dataset.name, setIndex, sets: sets.length, stage, done, total }),
            },
          );
          await saveEvaluation(result);
          results.push(result);
          state.evaluated = kept;
        }
        return results;
      });
    },
    async savedEvaluations() {
      return listEvaluations(state.loadedSession().model.key);
    },
    async evaluateRuns(ids, request, onProgress) {
      return state.job(async (signal) => {
        const ctx = await state.context();
        const sets = request.sets.map((name) => state.dataset(name));
        for (const run of ids) {
          let current = { index: 0, name: '' };
          await evaluateRun(
            ctx,
            browserPlatform,
            run,
            sets,
            { ...request, search: 'exhaustive' },
            {
              signal,
              memoryBudget: EVAL_PAGE_MEMORY_BUDGET,
              onSet: (index, name) => (current = { index, name }),
              onProgress: (stage, done, total) =>
                onProgress({ run, set: current.name, setIndex: current.index, sets: sets.length, stage, done, total }),
            },
          );
        }
        return (await Promise.all(ids.map((id) => browserPlatform.runs.get(id)))).filter((r) => r !== null);
      });
    },
    async search(query, topK) {
      return state.serialized(() => state.evaluatedSet().search(query, topK));
    },
    async document(docId) {
      return state.evaluatedSet().document(docId);
    },
    async auditPair(query, docId) {
      return state.serialized(() => state.evaluatedSet().auditPair(query, docId));
    },
    async differences(count) {
      const evaluated = state.evaluatedSet();
      return { set: evaluated.name, ...evaluated.differences(count) };
    },
    async indexEstimate(request, onPoint) {
      return state.serialized(async () => state.evaluatedSet().indexEstimate(request, onPoint));
    },
    async publishEvaluated(runtimeBase, settings, onStage) {
      return state.serialized(async () => {
        const runtime = await fetchSearchRuntime(runtimeBase);
        const session = state.loadedSession();
        return publishEvaluatedSet(session, state.evaluatedSet(), runtime, settings, (stage) => void onStage(stage));
      });
    },
    async exportEvaluated(what) {
      return state.evaluatedSet().exportFile(what);
    },
    async evaluatedQueries() {
      const evaluated = state.evaluatedSet();
      return { set: evaluated.name, queries: evaluated.queries() };
    },
    async evaluatedDocuments(limit) {
      const evaluated = state.evaluatedSet();
      const texts = evaluated.documentTexts();
      return { set: evaluated.name, texts: texts.slice(0, Math.max(0, limit)), total: texts.length };
    },
  };
}

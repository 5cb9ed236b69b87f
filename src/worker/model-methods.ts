// The worker's model calls: acquiring the GPU, estimating and loading a backbone (or a run's trained model), head
// statistics, the preview, encoding, the audit of typed texts, GPU memory and a lost device.
import { runHeadStats } from '../app/model/run-head-stats.ts';
import { auditTexts } from '../app/model/expansion-audit.ts';
import { auditCorpus, isBlankText } from '../app/model/corpus-audit.ts';
import { diffEncodings } from '../app/model/audit-diff.ts';
import { AUDIT_LIMITS, type AuditSide } from '../contract/model/expansion-audit.ts';
import { openModelSession, type ModelSession } from '../app/model/model-session.ts';
import { auditPair } from '../contract/model/pair-audit.ts';
import { estimateModel, openModelRef, summarizeModel } from '../app/model/open-model.ts';
import { browserPlatform } from '../app/platform/platform-browser.ts';
import type { FilesRef } from '../app/platform/platform.ts';
import type { ModelSource, WorkerApi } from './api.ts';
import type { WorkerState } from './state.ts';

/** Tokens per preview text, special tokens included. */
const PREVIEW_MAX_LENGTH = 128;

const DEMO_LABEL = 'demo backbone (a tiny BERT pretrained by splade-lab on WordNet glosses)';

function modelRef(source: ModelSource): FilesRef {
  switch (source.kind) {
    case 'demo':
      return { kind: 'url', url: source.url, label: 'the demo backbone' };
    case 'hub':
      return { kind: 'hub', id: source.id, revision: source.revision, hubUrl: source.hubUrl };
    case 'files':
      return { kind: 'files', files: source.files };
  }
}

/** The page's audit texts: at least one that is not blank, at most AUDIT_LIMITS.texts. */
function checkAuditTexts(texts: readonly string[]): void {
  const count = texts.filter((text) => !isBlankText(text)).length;
  if (count === 0) throw new Error('There is no text to audit: type one or more texts, one per line.');
  if (texts.length > AUDIT_LIMITS.texts)
    throw new Error(
      `${texts.length} texts to audit; the page audits at most ${AUDIT_LIMITS.texts} at once (the CLI's audit --corpus takes more).`,
    );
}

type ModelMethods = Pick<
  WorkerApi,
  | 'init'
  | 'estimate'
  | 'load'
  | 'useRun'
  | 'cancel'
  | 'headStats'
  | 'runHeadStats'
  | 'preview'
  | 'encode'
  | 'auditCorpus'
  | 'auditDiff'
  | 'gpuMemory'
  | 'onDeviceLost'
  | 'simulateDeviceLossForTesting'
>;

export function modelMethods(state: WorkerState): ModelMethods {
  return {
    async init() {
      return { adapter: (await state.context()).adapter };
    },
    async estimate(source) {
      const signal = state.startCancellable();
      const ctx = await state.context();
      return estimateModel(await browserPlatform.files(modelRef(source)), ctx.limits, { signal });
    },
    async load(source, onProgress) {
      const signal = state.startCancellable();
      const ctx = await state.context();
      onProgress({ stage: 'config', file: 'config.json', loaded: 0, total: null });
      let estimate: Parameters<typeof onProgress>[0]['estimate'];
      const model = await openModelRef(browserPlatform, modelRef(source), {
        limits: ctx.limits,
        signal,
        onEstimate: (e) => onProgress({ stage: 'download', loaded: 0, total: (estimate = e).downloadBytes, estimate: e }),
        onProgress: (p) => onProgress({ stage: 'download', ...p, estimate }),
      });
      onProgress({ stage: 'upload', loaded: 0, total: null });
      const synthetic = source.kind === 'demo';
      const label = synthetic ? DEMO_LABEL : model.name;
      const summary = { ...summarizeModel(model), name: synthetic ? 'demo' : model.name, label, synthetic };
      return state.installModel(model, summary, `${label}, W_head ${model.config.vocabSize} x ${model.config.embeddingSize}`);
    },
    async useRun(id) {
      const ctx = await state.context();
      const record = await browserPlatform.runs.get(id);
      if (!record) throw new Error(`There is no run "${id}" in this browser.`);
      const model = await openModelRef(browserPlatform, { kind: 'run', id }, { limits: ctx.limits });
      const label = `trained run: ${record.model.name}, k = ${record.k}, ${record.step} steps`;
      const summary = {
        ...summarizeModel(model),
        name: `run`,
        label,
        synthetic: false,
        run: { id, k: record.k, baseMeanRowNorm: record.model.meanRowNorm },
      };
      return state.installModel(
        model,
        summary,
        `${label}, W_head ${model.config.vocabSize} x ${model.config.embeddingSize} (after training)`,
      );
    },
    cancel() {
      state.cancel();
    },
    async headStats(k, options) {
      return state.serialized(() => state.loadedSession().measureHead(k, options));
    },
    async runHeadStats(options) {
      const run = state.summary?.run;
      if (!run) return null;
      const record = await browserPlatform.runs.get(run.id);
      return record ? runHeadStats(record, state.loadedSession().model, options) : null;
    },
    async preview(query, doc, k, topTerms) {
      return state.serialized(async () => {
        const session = state.loadedSession();
        const result = await session.preview(query, doc, k, { topTerms, maxLength: PREVIEW_MAX_LENGTH });
        const [queryOrigins, docOrigins] = await auditTexts(session, [query, doc], { k, maxLength: PREVIEW_MAX_LENGTH });
        return { ...result, origins: auditPair(queryOrigins, docOrigins) };
      });
    },
    async encode(texts, options, onProgress) {
      return state.serialized(() => state.loadedSession().encode(texts, options, { onProgress }));
    },
    async auditCorpus(texts, k, top) {
      checkAuditTexts(texts);
      return state.serialized(() => auditCorpus(state.loadedSession(), texts, { k, maxLength: AUDIT_LIMITS.maxLength }, { top }));
    },
    async auditDiff(texts, sides, top) {
      const kept = texts.filter((text) => !isBlankText(text));
      checkAuditTexts(kept);
      return state.serialized(async () => {
        const encoded = (session: ModelSession, k: number) =>
          session
            .encode(kept, { k, maxLength: AUDIT_LIMITS.maxLength })
            .then((vectors) => ({ vectors, vocab: session.vocabulary() }));
        // a run's trained weights hold its k already; its model is opened beside the loaded one and closed after
        const side = async (s: AuditSide) => {
          if (s.kind === 'loaded') return encoded(state.loadedSession(), s.k);
          const session = await openModelSession(await state.context(), browserPlatform, { kind: 'run', id: s.id });
          try {
            return await encoded(session, 1);
          } finally {
            session.destroy();
          }
        };
        return diffEncodings(kept, await side(sides[0]), await side(sides[1]), top);
      });
    },
    async gpuMemory() {
      return state.serialized(async () => state.currentContext?.allocatedBytes ?? 0);
    },
    onDeviceLost(listener) {
      state.lostListeners.push(listener);
    },
    simulateDeviceLossForTesting() {
      state.currentContext?.destroy();
    },
  };
}

// The worker's masked-LM calls: a run of the loaded backbone on a picked text file or on the lesson's generated
// documents (checkpointed in IndexedDB, resumable; its sequences kept in IndexedDB so that the text is tokenized once),
// its newest checkpoint, and loading its trained model.
import { summarizeModel, openModelRef } from '../app/model/open-model.ts';
import { mlmCheckpointStep, mlmRun } from '../app/training/mlm.ts';
import { mlmSourceFromBytes } from '../app/training/mlm-source.ts';
import { browserPlatform } from '../app/platform/platform-browser.ts';
import { makeLessonTask } from '../contract/lesson/lesson-task.ts';
import { crc32 } from '../util/crc32.ts';
import type { PageMlmRequest, WorkerApi } from './api.ts';
import type { WorkerState } from './state.ts';

type MlmMethods = Pick<WorkerApi, 'mlm' | 'mlmCheckpoint' | 'useMlmModel'>;

/** The page's built-in text: the lesson world's documents (a seed of its own, 40 per topic), one per line. */
export const LESSON_TEXT = { name: 'the lesson world (generated documents)', seed: 7, documentsPerTopic: 40 } as const;

/** The text's bytes and name. */
async function textOf(request: PageMlmRequest): Promise<{ bytes: Uint8Array; name: string }> {
  if (request.text.kind === 'file')
    return { bytes: new Uint8Array(await request.text.file.arrayBuffer()), name: request.text.file.name };
  const { corpus } = makeLessonTask({ seed: LESSON_TEXT.seed, documentsPerTopic: LESSON_TEXT.documentsPerTopic });
  return { bytes: new TextEncoder().encode(corpus.map((d) => d.text).join('\n') + '\n'), name: LESSON_TEXT.name };
}

/**
 * A run's key: the model, the text (name and CRC-32), the layout and length, and the head's divisor when it is not 1
 * (its checkpoints are kept under it).
 */
function runKey(state: WorkerState, request: PageMlmRequest, text: { bytes: Uint8Array; name: string }): string {
  const crc = crc32(text.bytes).toString(16).padStart(8, '0');
  const divided = request.k !== undefined && request.k !== 1 ? ` | head / ${request.k}` : '';
  return `mlm | ${state.loadedSession().model.key} | ${text.name} #${crc} | ${request.layout} ${request.maxLength}${divided}`;
}

export function mlmMethods(state: WorkerState): MlmMethods {
  return {
    async mlm(request, onEvent) {
      return state.job(async (signal) => {
        const session = state.loadedSession();
        const text = await textOf(request);
        const run = runKey(state, request, text);
        const { text: _text, ...mlmRequest } = request;
        const outcome = await mlmRun(await state.context(), browserPlatform, {
          model: session.model,
          source: async (asked, model) =>
            mlmSourceFromBytes(text.bytes, text.name, 'text', asked, {
              tokenizer: model.tokenizer,
              config: model.config,
              cache: browserPlatform.sequenceCache,
              say: (line, fields) => void ('note' in fields && onEvent?.({ kind: 'note', note: line })),
            }),
          run,
          request: mlmRequest,
          existing: 'replace',
          signal,
          onEvent,
        });
        return { run, startStep: outcome.startStep, step: outcome.step, msPerStep: outcome.msPerStep, growth: outcome.growth };
      });
    },
    async mlmCheckpoint(request) {
      return mlmCheckpointStep(browserPlatform, runKey(state, request, await textOf(request)));
    },
    async useMlmModel(run) {
      const ctx = await state.context();
      const base = state.summary?.label ?? 'the backbone';
      const model = await openModelRef(browserPlatform, { kind: 'run', id: run }, { limits: ctx.limits });
      const label = `masked-LM trained: ${base}`;
      const summary = { ...summarizeModel(model), name: 'mlm', label, synthetic: false };
      return state.installModel(model, summary, `${label}, W_head ${model.config.vocabSize} x ${model.config.embeddingSize}`);
    },
  };
}

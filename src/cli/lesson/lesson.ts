// `splade-lab lesson`: argument adapter over the teaching lesson (app/lesson-run.ts): the backbone fine-tuned at each k
// side by side on the generated task, printed at the measured steps; `--trace` records it for the page's playback.
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { LessonRun } from '../../app/lesson/lesson-run.ts';
import { type LessonFrame } from '../../contract/lesson/lesson-frames.ts';
import {
  LESSON_DEFAULTS,
  LESSON_RECIPE,
  LESSON_SENTENCE,
  LESSON_SENTENCE_TOKENS,
  checkLessonSentence,
  lessonTaskFor,
} from '../../contract/lesson/lesson-settings.ts';
import { playWholeLesson } from '../../app/lesson/lesson-trace.ts';
import { type LessonTrace, LESSON_TRACE_FORMAT } from '../../contract/lesson/lesson-trace.ts';
import { lessonTaskFiles } from '../../contract/lesson/lesson-task-files.ts';
import { lessonSentence } from '../../app/lesson/lesson-vector.ts';
import { parseKs } from '../../contract/experiments/sweep-plan.ts';
import type { Command } from '../command.ts';
import { withModelSession } from '../model/model-session.ts';
import { makeOutputFolder } from '../../app/platform/platform-node.ts';
import { checkOutputPath, inputsOf, writeOutputFile } from '../output-file.ts';

function measuredLine(frame: LessonFrame): string {
  return frame.runs
    .map((run) => {
      const losses = run.losses
        ? `rank ${run.losses.rank.toFixed(3)}  FLOPS(q) ${run.losses.flopsQueries.toFixed(1)}`
        : 'before training';
      const held = run.heldOut!;
      return `  k = ${run.k}: ${losses}  nDCG@10 ${held.ndcg10.toFixed(4)}  query dims ${held.queryActiveDims.toFixed(0)}  retrieval FLOPS ${held.flops.toFixed(1)}`;
    })
    .join('\n');
}

export const lessonCommand: Command = {
  spec: {
    name: 'lesson',
    summary: 'the teaching lesson: full fine-tuning at each k side by side on a generated task, measured on held-out queries',
    options: {
      model: { value: 'dir|id', help: 'backbone folder, Hub id or preset', default: 'public/demo' },
      ks: { value: 'K,K', help: 'two or three k values trained side by side', default: LESSON_DEFAULTS.ks.join(',') },
      seed: { value: 'S', help: 'seed of the generated task and the batch order', default: String(LESSON_DEFAULTS.seed) },
      steps: { value: 'N', help: 'training steps of each k', default: String(LESSON_DEFAULTS.steps) },
      'measure-every': {
        value: 'N',
        help: 'measure the held-out queries every N steps (and before and after)',
        default: String(LESSON_DEFAULTS.measureEvery),
      },
      probe: { value: 'I', help: 'which held-out query to watch (0-based)', default: '0' },
      sentence: { value: 'TEXT', help: 'the sentence of the vector steps', default: LESSON_SENTENCE },
      trace: { value: 'file.json', help: 'write the whole lesson as a trace the page plays without WebGPU' },
      name: { value: 'TEXT', help: 'how the trace names the model (default: its folder or id)' },
      json: { help: 'print the trace as one JSON object' },
      'write-task': {
        value: 'dir',
        help: "write the seed's generated task (triplets.tsv and the held-out set as a BEIR folder, beir/) for train, calibrate, sweep and eval, and stop",
      },
    },
    notes:
      `Batches of ${LESSON_RECIPE.batchSize} triplets, queries of ${LESSON_RECIPE.queryLength} tokens and documents of ${LESSON_RECIPE.documentLength}, ` +
      `AdamW at ${LESSON_RECIPE.peakLr}, lambda_q ${LESSON_RECIPE.lambdaQueries}, lambda_d ${LESSON_RECIPE.lambdaDocuments} (ramped), no dropout. ` +
      "The task is generated from the seed (topics of real words; every document of a query's topic is relevant).",
  },
  async run(args) {
    if (args.has('write-task')) return writeTask(args.required('write-task'), args.numberOrDefault('seed'));
    const sentence = checkLessonSentence(args.required('sentence'));
    const tracePath = args.string('trace');
    if (tracePath !== undefined) await checkOutputPath(tracePath, '--trace', inputsOf(args, 'model'));
    const settings = {
      ks: parseKs(args.required('ks')),
      seed: args.number('seed'),
      steps: args.number('steps'),
      measureEvery: args.number('measure-every'),
    };
    const trace = await withModelSession(args.required('model'), 'lesson', {}, async (session, ctx) => {
      const run = await LessonRun.open(ctx, session.model, settings, args.numberOrDefault('probe'));
      try {
        const vectors = await lessonSentence(
          session,
          sentence,
          run.facts.settings.ks,
          LESSON_RECIPE.topTerms,
          LESSON_SENTENCE_TOKENS,
        );
        const start = performance.now();
        let begun = start;
        const frames = await playWholeLesson(run, (frame) => {
          if (frame.step === 0) begun = performance.now();
          if (!args.flag('json') && frame.runs[0].heldOut)
            process.stdout.write(
              `step ${frame.step} (${((performance.now() - start) / 1000).toFixed(0)} s)\n${measuredLine(frame)}\n`,
            );
        });
        const timing = {
          beginMs: Math.round(begun - start),
          stepsMs: Math.round(performance.now() - begun),
          cores: availableParallelism(),
        };
        const recorded: LessonTrace = {
          format: LESSON_TRACE_FORMAT,
          version: 1,
          model: args.string('name') ?? session.model.name,
          adapter: ctx.adapter.description || ctx.adapter.architecture,
          timing,
          facts: run.facts,
          sentence: vectors,
          frames,
        };
        return recorded;
      } finally {
        run.destroy();
      }
    });
    const text = JSON.stringify(trace);
    if (tracePath !== undefined) await writeOutputFile(tracePath, text + '\n', '--trace');
    if (args.flag('json')) process.stdout.write(text + '\n');
    return 0;
  },
};

async function writeTask(folder: string, seed: number): Promise<number> {
  const task = lessonTaskFor(seed);
  for (const file of lessonTaskFiles(task)) {
    const path = join(folder, file.path);
    await makeOutputFolder(dirname(path), '--write-task');
    await writeOutputFile(path, file.text, '--write-task');
  }
  process.stdout.write(
    `${join(folder, 'triplets.tsv')}: ${task.triplets.length} training triplets\n` +
      `${join(folder, 'beir')}: ${task.corpus.length} documents, ${task.queries.length} held-out queries (split test)\n`,
  );
  return 0;
}

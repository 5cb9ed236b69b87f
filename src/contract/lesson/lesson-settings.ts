// The teaching lesson's settings (which ks side by side, seed, steps, when to measure) and its small fixed recipe:
// one set of limits and defaults for the page, the worker and `splade-lab lesson`.
import { TRAIN_LIMITS, checkK, checkRange, InvalidRequestError, type NumberRange } from '../limits.ts';
import { makeLessonTask, type LessonTask } from './lesson-task.ts';
import { PAPER_LAMBDAS } from '../training/recipe.ts';

export interface LessonSettings {
  /** The heads trained side by side: k = 1 (the head as loaded) and one or two divided ones, by default [1, 8]. */
  ks: number[];
  /** Seeds the generated task (topics, documents, queries), the batch order and nothing else. */
  seed: number;
  /** Training steps of each k. */
  steps: number;
  /** The held-out set is measured before the first step, every this many steps, and after the last. */
  measureEvery: number;
}

export const LESSON_LIMITS = {
  ks: { min: 2, max: 3, integer: true },
  steps: { min: 1, max: 400, integer: true },
  measureEvery: { min: 1, max: 400, integer: true },
} as const satisfies Record<string, NumberRange>;

export const LESSON_DEFAULTS: Readonly<LessonSettings> = { ks: [1, 8], seed: 1, steps: 40, measureEvery: 20 };

/**
 * The lesson's recipe: the paper's loss, optimiser and lambdas on tiny batches of short texts, so that a class sees
 * learning within a few minutes on any laptop. What it gives on the demo backbone and the generated task is in the
 * bundled recording (public/lesson/trace.json, `npm run lesson-trace`), whose take-away docs/page-guide.md quotes
 * (`npm run lesson-guide`); when these lambdas were chosen, lambdas ten times smaller let the dense k = 1 end ahead.
 */
export const LESSON_RECIPE = {
  batchSize: 8,
  /** Tokens per query and per document: the generated texts fit (at most 4 and 11 tokens with [CLS] and [SEP]). */
  queryLength: 6,
  documentLength: 12,
  peakLr: 1e-3,
  lambdaQueries: PAPER_LAMBDAS.queries,
  lambdaDocuments: PAPER_LAMBDAS.documents,
  /** Top terms shown of each watched vector. */
  topTerms: 10,
  /** Documents per topic of the held-out corpus (16 topics, 2 held-out queries each). */
  documentsPerTopic: 12,
} as const;

/** The recipe's figures as plain numbers (what a trace stores). */
export type LessonRecipe = { [K in keyof typeof LESSON_RECIPE]: number };

/** The lesson's generated task for a seed, with the recipe's corpus size: what the page, the CLI and `--write-task` use. */
export function lessonTaskFor(seed: number): LessonTask {
  return makeLessonTask({ seed, documentsPerTopic: LESSON_RECIPE.documentsPerTopic });
}

/** Checks a lesson request; whatever is left out takes its default. */
export function checkLessonSettings(settings: Partial<LessonSettings>): LessonSettings {
  const ks = settings.ks ?? [...LESSON_DEFAULTS.ks];
  checkRange(ks.length, LESSON_LIMITS.ks, 'The number of k values in a lesson');
  ks.forEach((k) => checkK(k));
  if (new Set(ks).size !== ks.length) throw new InvalidRequestError(`The lesson's k values must differ, got ${ks.join(', ')}`);
  return {
    ks: [...ks],
    seed: checkRange(settings.seed ?? LESSON_DEFAULTS.seed, TRAIN_LIMITS.seed, 'The lesson seed'),
    steps: checkRange(settings.steps ?? LESSON_DEFAULTS.steps, LESSON_LIMITS.steps, 'Lesson steps'),
    measureEvery: checkRange(settings.measureEvery ?? LESSON_DEFAULTS.measureEvery, LESSON_LIMITS.measureEvery, 'Measure every'),
  };
}

/** Whether the held-out set is measured after `step` steps (0: before training). */
export function measuredAt(step: number, settings: LessonSettings): boolean {
  return step === 0 || step === settings.steps || step % settings.measureEvery === 0;
}

/** The sentence the lesson's first steps open with (a class can type another when the lesson computes live). */
export const LESSON_SENTENCE = 'a whale swims past the coral reef at high tide';

/** Longest sentence the vector steps encode, in tokens. */
export const LESSON_SENTENCE_TOKENS = 32;

/** A typed sentence for the vector steps: not blank, at most 500 characters. */
export function checkLessonSentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) throw new InvalidRequestError('Type a sentence to see its SPLADE vector');
  if (trimmed.length > 500) throw new InvalidRequestError(`The sentence has ${trimmed.length} characters; at most 500`);
  return trimmed;
}

// Where the lesson's figures come from: live from the GPU worker, or recorded (the bundled trace, played frame by
// frame without WebGPU). The lesson panel drives either the same way: start, step, the sentence's vectors, stop.
import {
  parseLessonTrace,
  type LessonFacts,
  type LessonFrame,
  type LessonSettings,
  type LessonTrace,
  type LessonVector,
  type WorkerClient,
} from '../../worker/api.ts';
import { parseJsonText } from '../../util/json-text.ts';
import { checkHeadGrowthTrace, type HeadGrowthTrace } from '../../contract/lesson/head-growth-trace.ts';

/** What the page asks a lesson for: the ks side by side, the seed of the task and batches, the steps of each k. */
export type LessonChoice = Pick<LessonSettings, 'ks' | 'seed' | 'steps'>;

export interface LessonSource {
  readonly mode: 'live' | 'recorded';
  start(choice: LessonChoice): Promise<{ facts: LessonFacts; frame: LessonFrame }>;
  step(): Promise<LessonFrame>;
  /** The sentence under each k; a recording knows only its own sentence. */
  sentence(text: string, ks: number[]): Promise<LessonVector[]>;
  stop(): Promise<void>;
}

/** The lesson computed now by the worker on the loaded model. */
export function liveLesson(client: WorkerClient): LessonSource {
  return {
    mode: 'live',
    start: ({ ks, seed, steps }) => client.lessonStart({ ks, seed, steps }, 0),
    step: () => client.lessonStep(),
    sentence: (text, ks) => client.lessonSentence(text, ks),
    stop: () => client.lessonStop(),
  };
}

/** Relative to the page, like the demo folder (works under any sub-path). */
export const LESSON_TRACE_FILE = 'lesson/trace.json';

/** A recording's ks, seed and steps are its own: asking for others says so. */
export class RecordedLessonMismatch extends Error {
  override name = 'RecordedLessonMismatch';
}

/** The bundled recording played back: each step hands over its next frame. */
export function recordedLesson(trace: LessonTrace): LessonSource {
  let next = 0;
  const { settings } = trace.facts;
  return {
    mode: 'recorded',
    async start({ ks, seed, steps }) {
      if (ks.join(',') !== settings.ks.join(',') || seed !== settings.seed || steps !== settings.steps) {
        throw new RecordedLessonMismatch(
          `The recording has k = ${settings.ks.join(' and ')} with seed ${settings.seed} over ${settings.steps} steps; other settings need the live lesson (WebGPU).`,
        );
      }
      next = 1;
      return { facts: trace.facts, frame: trace.frames[0] };
    },
    async step() {
      if (next >= trace.frames.length) throw new Error(`the recording ends at step ${trace.frames.length - 1}`);
      return trace.frames[next++];
    },
    async sentence(text, ks) {
      const own = trace.sentence[0].text;
      if (text.trim() !== own || ks.join(',') !== settings.ks.join(',')) {
        throw new RecordedLessonMismatch(
          `The recording holds only "${own}" at k = ${settings.ks.join(' and ')}; typing another sentence needs the live lesson (WebGPU).`,
        );
      }
      return trace.sentence;
    },
    async stop() {
      next = 0;
    },
  };
}

/** Fetches and checks the bundled trace next to the page. */
export async function fetchLessonTrace(pageUrl: string): Promise<LessonTrace> {
  const url = new URL(LESSON_TRACE_FILE, pageUrl).href;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`The recorded lesson (${url}) could not be read: HTTP ${response.status}`);
  const json = parseJsonText(await response.text(), url, 'rebuild it with `npm run lesson-trace`, or reload the page');
  return parseLessonTrace(json, url);
}

/** Relative to the page: the recorded masked-LM run of the demo backbone (made by `npm run demo-pretrain`). */
export const HEAD_GROWTH_FILE = 'lesson/head-growth.json';

/** Fetches and checks the recorded masked-LM run next to the page. */
export async function fetchHeadGrowth(pageUrl: string): Promise<HeadGrowthTrace> {
  const url = new URL(HEAD_GROWTH_FILE, pageUrl).href;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} could not be read: HTTP ${response.status}`);
  return checkHeadGrowthTrace(parseJsonText(await response.text(), url, 'rebuild it with `npm run demo-pretrain`'), url);
}

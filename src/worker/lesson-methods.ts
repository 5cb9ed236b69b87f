// The worker's teaching-lesson calls: one live lesson at a time on the loaded model, stepped by the page (play, pause
// and step are the page's), and the sentence's vectors under each k.
import { LessonRun } from '../app/lesson/lesson-run.ts';
import { LESSON_RECIPE, LESSON_SENTENCE_TOKENS, checkLessonSentence } from '../contract/lesson/lesson-settings.ts';
import { lessonSentence } from '../app/lesson/lesson-vector.ts';
import type { WorkerApi } from './api.ts';
import { NoLessonError } from './errors.ts';
import type { WorkerState } from './state.ts';

type LessonMethods = Pick<WorkerApi, 'lessonStart' | 'lessonStep' | 'lessonSentence' | 'lessonStop'>;

export function lessonMethods(state: WorkerState): LessonMethods {
  return {
    async lessonStart(settings, probe) {
      const ctx = await state.context();
      return state.serialized(async () => {
        state.closeLesson();
        const run = await LessonRun.open(ctx, state.loadedSession().model, settings, probe);
        state.lesson = run;
        return { facts: run.facts, frame: await run.begin() };
      });
    },
    async lessonStep() {
      return state.serialized(async () => {
        if (!state.lesson) throw new NoLessonError();
        return state.lesson.advance();
      });
    },
    async lessonSentence(text, ks) {
      const sentence = checkLessonSentence(text);
      return state.serialized(() =>
        lessonSentence(state.loadedSession(), sentence, ks, LESSON_RECIPE.topTerms, LESSON_SENTENCE_TOKENS),
      );
    },
    async lessonStop() {
      await state.serialized(async () => state.closeLesson());
    },
  };
}

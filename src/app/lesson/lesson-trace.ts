// A recorded lesson: the sentence's vectors and every frame of a whole live lesson, made by the same code the page runs
// live (`splade-lab lesson --trace`), bundled as JSON so that a machine without WebGPU (or too slow) plays it back.
import type { LessonRun } from './lesson-run.ts';
import type { LessonFrame } from '../../contract/lesson/lesson-frames.ts';

/** Plays a live lesson from its first frame to its last (`onFrame` after each), as a trace's frames. */
export async function playWholeLesson(
  run: LessonRun,
  onFrame?: (frame: LessonFrame) => void,
  signal?: AbortSignal,
): Promise<LessonFrame[]> {
  const frames = [await run.begin()];
  onFrame?.(frames[0]);
  while (!run.finished) {
    signal?.throwIfAborted();
    const frame = await run.advance();
    frames.push(frame);
    onFrame?.(frame);
  }
  return frames;
}

// The lesson's training as a player: frames so far, play (a step, a pause set by the speed, the next step), pause,
// one step, restart; from a live or a recorded source alike. It times the steps (their mean estimates the time left, so
// that a slow adapter can be told once, not at every slow step).
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { toPageFailure, type LessonFacts, type LessonFrame } from '../../worker/api.ts';
import type { LessonChoice, LessonSource } from './lesson-source.ts';
import type { LessonSpeed } from '../url-state.ts';

/** The pause between two steps while playing. */
export const SPEED_PAUSE_MS: Record<LessonSpeed, number> = { slow: 1200, normal: 400, fast: 0 };

export class LessonPlayback implements ReactiveController {
  source: LessonSource | null = null;
  facts: LessonFacts | null = null;
  frames: LessonFrame[] = [];
  playing = false;
  /** A start or a step is under way. */
  busy = false;
  error = '';
  /** Milliseconds of the last step, and of all steps timed since the start (the source's own time: live, the GPU's). */
  lastStepMs = 0;
  private timedMs = 0;
  private timedSteps = 0;
  /** Set once the mean step time has been found slow (the panel's notice then stays until the lesson starts again). */
  slowNoticed = false;
  speed: LessonSpeed = 'normal';
  private generation = 0;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  hostConnected(): void {}

  hostDisconnected(): void {
    this.playing = false;
  }

  get finished(): boolean {
    return this.facts !== null && this.frames.length > this.facts.settings.steps;
  }

  get step(): number {
    return this.frames.length - 1;
  }

  /** Whether a step has been timed yet (its mean may still be 0 ms, on a fast machine or a fake worker). */
  get stepTimed(): boolean {
    return this.timedSteps > 0;
  }

  /** The mean milliseconds of the steps taken so far (0 before the first). */
  get meanStepMs(): number {
    return this.timedSteps ? this.timedMs / this.timedSteps : 0;
  }

  /** Milliseconds the steps left would take at the mean step time (0 before the first step or after the last). */
  get msLeft(): number {
    return this.facts ? Math.max(0, this.facts.settings.steps - this.step) * this.meanStepMs : 0;
  }

  /** Drops the frames and stops; the next play or step starts again with `source` and these settings. */
  async reset(source: LessonSource | null): Promise<void> {
    this.generation++;
    this.playing = false;
    const old = this.source;
    this.source = source;
    this.facts = null;
    this.frames = [];
    this.error = '';
    this.lastStepMs = this.timedMs = this.timedSteps = 0;
    this.slowNoticed = false;
    this.host.requestUpdate();
    if (old) await old.stop().catch(() => undefined);
  }

  /** Starts the lesson (frame 0: the heads before training) unless it has started. */
  async prepare(choice: LessonChoice): Promise<void> {
    if (this.busy || this.facts) return;
    await this.guarded(async (generation) => {
      await this.started(choice, generation);
    });
  }

  /** One step of every k (starting the lesson first if needed). */
  async stepOnce(choice: LessonChoice): Promise<void> {
    if (this.busy || this.finished) return;
    await this.guarded(async (generation) => {
      if (!(await this.started(choice, generation))) return;
      const start = performance.now();
      const frame = await this.source!.step();
      if (generation !== this.generation) return;
      this.lastStepMs = performance.now() - start;
      this.timedMs += this.lastStepMs;
      this.timedSteps++;
      this.frames = [...this.frames, frame];
    });
  }

  /** Plays to the last step unless paused; each step waits for the one before. */
  async play(choice: LessonChoice): Promise<void> {
    if (this.playing) return;
    this.playing = true;
    this.error = '';
    this.host.requestUpdate();
    const generation = this.generation;
    try {
      while (this.playing && generation === this.generation && !this.finished && !this.error) {
        await this.stepOnce(choice);
        const pause = SPEED_PAUSE_MS[this.speed];
        if (pause > 0 && this.playing && !this.finished) await new Promise((resolve) => setTimeout(resolve, pause));
      }
    } finally {
      if (generation === this.generation) this.playing = false;
      this.host.requestUpdate();
    }
  }

  pause(): void {
    this.playing = false;
    this.host.requestUpdate();
  }

  private async started(choice: LessonChoice, generation: number): Promise<boolean> {
    if (this.facts) return true;
    if (!this.source) throw new Error('The lesson has no source of figures yet: load a model, or play the recording.');
    const { facts, frame } = await this.source.start(choice);
    if (generation !== this.generation) return false;
    this.facts = facts;
    this.frames = [frame];
    this.host.requestUpdate();
    return true;
  }

  private async guarded(work: (generation: number) => Promise<void>): Promise<void> {
    this.busy = true;
    this.error = '';
    this.host.requestUpdate();
    const generation = this.generation;
    try {
      await work(generation);
    } catch (error) {
      if (generation === this.generation) {
        this.error = toPageFailure(error).message;
        this.playing = false;
      }
    } finally {
      this.busy = false;
      this.host.requestUpdate();
    }
  }
}

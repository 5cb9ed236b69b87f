// The lesson's keyboard shortcuts, as a controller: the keys and what they do (listed beside the controls), answered
// while the panel is shown and the user is not typing in a field.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { LESSON_SPEEDS, LESSON_STEPS, type LessonState } from '../url-state.ts';
import type { LessonStepName } from './lesson-narration.ts';

/** The keys the lesson answers to (shown beside the controls). */
export const SHORTCUTS = [
  ['Space', 'play or pause the training'],
  ['→ or .', 'one training step'],
  ['PageDown / PageUp or n / p', 'next or previous lesson step'],
  ['1 to 4', 'go to a lesson step'],
  ['+ / −', 'faster or slower'],
  ['f', 'presenter view on or off'],
] as const;

export interface LessonKeysHost extends ReactiveControllerHost {
  /** The panel is shown: it answers to the keyboard. */
  readonly active: boolean;
  readonly state: LessonState;
  readonly step: LessonStepName;
  togglePlay(): void;
  stepOnce(): void;
  goToStep(step: number): void;
  changeLesson(patch: Partial<LessonState>): void;
}

function typing(event: KeyboardEvent): boolean {
  const target = event.composedPath()[0] as HTMLElement | undefined;
  return !!target && (['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.isContentEditable);
}

export class LessonKeys implements ReactiveController {
  constructor(private readonly host: LessonKeysHost) {
    host.addController(this);
  }

  hostConnected(): void {
    window.addEventListener('keydown', this.onKey);
  }

  hostDisconnected(): void {
    window.removeEventListener('keydown', this.onKey);
  }

  private readonly onKey = (event: KeyboardEvent) => {
    const host = this.host;
    if (!host.active || typing(event) || event.ctrlKey || event.metaKey || event.altKey) return;
    const speeds = LESSON_SPEEDS;
    const speedIndex = speeds.indexOf(host.state.speed);
    const actions: Record<string, () => void> = {
      ' ': () => (host.step === 'training' ? host.togglePlay() : host.changeLesson({ step: 3 })),
      ArrowRight: () => host.stepOnce(),
      '.': () => host.stepOnce(),
      PageDown: () => host.goToStep(host.state.step + 1),
      n: () => host.goToStep(host.state.step + 1),
      PageUp: () => host.goToStep(host.state.step - 1),
      p: () => host.goToStep(host.state.step - 1),
      '+': () => host.changeLesson({ speed: speeds[Math.min(speeds.length - 1, speedIndex + 1)] }),
      '-': () => host.changeLesson({ speed: speeds[Math.max(0, speedIndex - 1)] }),
      f: () => host.changeLesson({ present: !host.state.present }),
      ...Object.fromEntries(LESSON_STEPS.map((_, i) => [String(i + 1), () => host.goToStep(i + 1)])),
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  };
}

// The lesson's keyboard shortcuts, as a controller: the keys and what they do (listed beside the controls), answered
// while the panel is shown and the user is not typing in a field. A presenter's clicker sends PageDown / PageUp (some
// send arrows): they scroll through the step first, and move to the next or previous step only at its end or start.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { LESSON_SPEEDS, LESSON_STEPS, type LessonState } from '../url-state.ts';
import type { LessonStepName } from './lesson-narration.ts';

/** The keys the lesson answers to (shown beside the controls). */
export const SHORTCUTS = [
  [
    'PageDown, → (↓ presenting)',
    "scroll down through the step; at its end, the next step (a presenter's clicker); in step 3 the first press plays the training",
  ],
  ['PageUp, ← (↑ presenting)', 'scroll up through the step; at its start, the previous step'],
  ['Space', 'play or pause the training in step 3; elsewhere as PageDown (never back)'],
  ['.', 'one training step'],
  ['n / p', 'next or previous lesson step at once'],
  ['1 to 4', 'go to a lesson step'],
  ['+ / −', 'faster or slower'],
  ['f', 'presenter view on or off'],
] as const;

export interface LessonKeysHost extends ReactiveControllerHost {
  /** The panel is shown: it answers to the keyboard. */
  readonly active: boolean;
  readonly state: LessonState;
  readonly step: LessonStepName;
  /** Step 3's training can still play (it has not ended). */
  readonly canPlay: boolean;
  togglePlay(): void;
  stepOnce(): void;
  goToStep(step: number): void;
  /** Scrolls one screen through the step, or goes to the next (1) or previous (-1) step at its end or start. */
  advance(direction: 1 | -1): void;
  changeLesson(patch: Partial<LessonState>): void;
}

/** The key was pressed in a text field or a list box (which has keys of its own), or on the page's tabs. */
function elsewhere(event: KeyboardEvent): boolean {
  const path = event.composedPath() as HTMLElement[];
  const target = path[0];
  if (!target) return false;
  if (['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.isContentEditable) return true;
  return path.some((element) => element.getAttribute?.('role') === 'tablist');
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
    if (!host.active || elsewhere(event) || event.ctrlKey || event.metaKey || event.altKey) return;
    // Shift+Space scrolls up as the browser does: Space itself never goes back
    if (event.key === ' ' && event.shiftKey) return;
    const speeds = LESSON_SPEEDS;
    const speedIndex = speeds.indexOf(host.state.speed);
    const presenting = host.state.present;
    const actions: Record<string, () => void> = {
      ' ': () => (host.step === 'training' && host.canPlay ? host.togglePlay() : host.advance(1)),
      PageDown: () => host.advance(1),
      ArrowRight: () => host.advance(1),
      PageUp: () => host.advance(-1),
      ArrowLeft: () => host.advance(-1),
      ...(presenting ? { ArrowDown: () => host.advance(1), ArrowUp: () => host.advance(-1) } : {}),
      '.': () => host.stepOnce(),
      n: () => host.goToStep(host.state.step + 1),
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

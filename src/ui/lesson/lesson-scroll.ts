// Scrolling through a lesson step a screen at a time (a presenter's PageDown / PageUp): how far one press goes, and
// whether the step has more to show in that direction (if not, the keys move to the next or previous step).

/** Within this many pixels of its end (or start) a step counts as shown to the end (or from the start). */
const SLACK = 8;

/** Of a screen, the share one press scrolls: the last lines of one screen are the first of the next. */
const PAGE_SHARE = 0.9;

/**
 * Scrolls the page one screen through `step` in `direction` and says so, or returns false when the step is already
 * shown to its end (1) or from its start (-1). `stuck`: pixels at the top that a sticky bar covers.
 */
export function scrollWithinStep(step: Element, direction: 1 | -1, stuck = 0): boolean {
  const view = window.innerHeight;
  const rect = step.getBoundingClientRect();
  const page = Math.max(120, Math.round((view - stuck) * PAGE_SHARE));
  const left = direction > 0 ? rect.bottom - view : -rect.top;
  if (left <= SLACK) return false;
  window.scrollBy({ top: direction * Math.min(page, left + SLACK), behavior: 'instant' });
  return true;
}

/** The height of `bar` when it is stuck to the top of the screen (position: sticky at top 0), else 0. */
export function stuckHeight(bar: Element | null): number {
  if (!bar || getComputedStyle(bar).position !== 'sticky') return 0;
  const rect = bar.getBoundingClientRect();
  return rect.top <= 1 ? rect.height : 0;
}

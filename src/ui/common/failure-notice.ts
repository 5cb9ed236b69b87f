// What the page says, and offers to do, for each kind of failure (never a blank page).
import type { PageFailure } from '../../worker/api.ts';
import type { NoticeAction, NoticeTone } from './notice-banner.ts';
import { offlineAdvice } from './offline-advice.ts';

export interface Notice {
  tone: NoticeTone;
  heading: string;
  message: string;
  actions: NoticeAction[];
}

export const ACTIONS = {
  retry: { id: 'retry', label: 'Try again' },
  reload: { id: 'reload-model', label: 'Reload the model' },
  demo: { id: 'load-demo', label: 'Load the demo backbone instead' },
  lesson: { id: 'open-lesson', label: 'Play the recorded lesson' },
  dismiss: { id: 'dismiss', label: 'Dismiss' },
} as const;

/**
 * The notice for a failure while working on `model`; `kept` names the model that is still loaded, if any
 * (a cancelled or failed load leaves the previous model in place).
 */
export function noticeFor(failure: PageFailure, model: string, kept?: string): Notice {
  switch (failure.kind) {
    case 'no-webgpu':
      return {
        tone: 'warning',
        heading: 'This browser gives the page no WebGPU',
        message:
          `${failure.message}\nThe page needs WebGPU to measure heads and run models. What still works without it: ` +
          'the Lesson plays a recording computed by splade-lab (the same code and numbers, step by step), and Head norms ' +
          "shows the demo backbone's precomputed statistics, so you can still move k and see what it does.",
        actions: [ACTIONS.lesson],
      };
    case 'device-lost':
      return {
        tone: 'error',
        heading: 'The GPU device was lost',
        message: `${failure.message}\nThis happens when the driver resets or the tab was in the background for long. Reloading the model starts a fresh device.`,
        actions: [ACTIONS.reload],
      };
    case 'too-large':
      return {
        tone: 'error',
        heading: `${model} is too large for this GPU`,
        message: failure.message,
        actions: [ACTIONS.demo, ACTIONS.dismiss],
      };
    case 'download': {
      const offline = offlineAdvice(failure.message, 'model');
      return {
        tone: 'error',
        heading: offline ? `Could not reach the Hub for ${model}` : `Could not download ${model}`,
        message: `${failure.message}\n${offline ?? 'Check the network connection and the model id; downloads that finished are cached.'}`,
        actions: [ACTIONS.retry, ACTIONS.demo],
      };
    }
    case 'format':
      return {
        tone: 'error',
        heading: `${model} cannot be read`,
        message: failure.message,
        actions: [ACTIONS.demo, ACTIONS.dismiss],
      };
    case 'cancelled':
      return {
        tone: 'info',
        heading: `Loading ${model} was cancelled`,
        message: `The download was stopped and nothing of it was kept. ${kept ? `${kept} is still loaded, with your settings.` : 'No model is loaded: pick one above.'}`,
        actions: [ACTIONS.retry, ACTIONS.dismiss],
      };
    case 'no-model':
      return { tone: 'info', heading: 'No model loaded', message: failure.message, actions: [ACTIONS.demo] };
    case 'busy':
      return { tone: 'info', heading: 'Busy elsewhere', message: failure.message, actions: [ACTIONS.dismiss] };
    case 'other':
      return {
        tone: 'error',
        heading: 'Something went wrong',
        message: failure.message,
        actions: [ACTIONS.retry, ACTIONS.dismiss],
      };
  }
}

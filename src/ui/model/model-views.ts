// The loaded model as the page shows it at its k, each a latest-wins task: the head's statistics (the demo's shipped
// figures without WebGPU), a trained run's heads, and the live preview's vectors of the query and the document.
import { Task } from '@lit/task';
import type { ReactiveControllerHost } from 'lit';
import { toPageFailure } from '../../worker/api.ts';
import { noticeFor } from '../common/failure-notice.ts';
import type { ModelLoader } from './model-loader.ts';
import { precomputedPair } from './precomputed-stats.ts';
import type { PageState } from '../url-state.ts';

const STATS_DELAY_MS = 120;
const PREVIEW_DELAY_MS = 350;
const TOP_TERMS = 12;

/** Waits `ms` unless `signal` aborts first (a newer request replaced this one). */
function settle(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

/** The host's tasks over `loader`'s model and the page's `state`. */
export function modelViews(host: ReactiveControllerHost, loader: ModelLoader, state: () => PageState) {
  /** The inputs the preview last computed with: none (no model) until its tab is first opened. */
  let previewInputs: readonly [ModelLoader['client'], ModelLoader['summary'], string, string, number] = [null, null, '', '', 1];
  return {
    /** Head statistics of the loaded model at the current k (or the demo's shipped figures without WebGPU). */
    stats: new Task(host, {
      task: async ([client, summary, k, logNorm, demoNorms], { signal }) => {
        if (demoNorms) return precomputedPair(demoNorms, k, logNorm);
        if (!client || !summary) return null;
        await settle(STATS_DELAY_MS, signal);
        return client.headStats(k, { logNorm });
      },
      args: () => [loader.client, loader.summary, state().k, state().logNorm, loader.demoNorms] as const,
      onError: (error) => {
        if ((error as { name?: string })?.name !== 'AbortError')
          loader.showNotice(noticeFor(toPageFailure(error), state().model));
      },
    }),

    /** A run's head as loaded, divided by its k and after training, when the model in use is a run's. */
    runHeads: new Task(host, {
      task: async ([client, summary, logNorm]) => (client && summary?.run ? client.runHeadStats({ logNorm }) : null),
      args: () => [loader.client, loader.summary, state().logNorm] as const,
    }),

    /**
     * The preview's vectors of the query and the document at the current k, computed while the preview's tab is open:
     * behind another tab it keeps what it showed last and spends no GPU time (a page opened on another tab encodes
     * nothing for it until its tab is opened).
     */
    preview: new Task(host, {
      task: async ([client, summary, query, doc, k], { signal }) => {
        if (!client || !summary) return null;
        await settle(PREVIEW_DELAY_MS, signal);
        return client.preview(query, doc, k, TOP_TERMS);
      },
      args: () => {
        if (state().panel === 'preview')
          previewInputs = [loader.client, loader.summary, state().query, state().doc, state().k] as const;
        return previewInputs;
      },
    }),
  };
}

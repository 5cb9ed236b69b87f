// <splade-app>: the whole shell with its real GPU worker on the bundled demo backbone (public/demo/, made by
// `npm run demo-backbone`): it loads the demo named in the URL, draws the head-norm panel, and writes k back to the URL.
import '../../src/ui/splade-app.ts';
import type { SpladeApp } from '../../src/ui/splade-app.ts';
import type { HeadNormPanel } from '../../src/ui/model/head-norm-panel.ts';
import type { KControl } from '../../src/ui/model/k-control.ts';
import type { ModelPicker } from '../../src/ui/model/model-picker.ts';
import { allInside, check, cleanup, inside, mount, near } from './ui-fixture.ts';

const DEMO_URL = new URL('/public/demo/', location.href).href;
/** SwiftShader compiles pipelines slowly: loading the demo and measuring its head can take a while. */
const WAIT_MS = 240_000;

async function until(what: string, condition: () => boolean): Promise<void> {
  const start = performance.now();
  while (!condition()) {
    if (performance.now() - start > WAIT_MS) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The head statistics the panel shows once they are measured at `k` (not busy, k column = k). */
function settledStats(panel: HeadNormPanel, k: number) {
  return panel.stats && panel.stats.after.k === k && !panel.busy ? panel.stats : null;
}

/** Runs `body` with the page's query string set to `search` (the shell reads and rewrites it), then restores it. */
async function withQuery(search: string, body: () => Promise<void>): Promise<void> {
  const runnerUrl = location.href;
  history.replaceState(null, '', `${location.pathname}${search}`);
  try {
    await body();
  } finally {
    cleanup();
    history.replaceState(null, '', runnerUrl);
  }
}

describe('<splade-app>', () => {
  it('loads the demo named in the URL, draws the head-norm panel from the GPU, and puts a new k in the URL', () =>
    withQuery('?model=demo&k=2', async () => {
      const app = await mount<SpladeApp>('splade-app', { demoUrl: DEMO_URL });
      const picker = inside<ModelPicker>(app, 'model-picker');
      await until('the demo to load', () => picker.summary !== null);
      check(picker.summary?.synthetic === true, 'the demo is loaded and flagged synthetic');
      await picker.updateComplete;
      check(/demo backbone/.test(inside(picker, '#model-label').textContent ?? ''), 'the picker labels it as the demo');

      const panel = inside<HeadNormPanel>(app, 'head-norm-panel');
      await until('statistics at k = 2', () => settledStats(panel, 2) !== null);
      const atK2 = settledStats(panel, 2)!;
      check(atK2.origin === 'gpu', `figures measured by the GPU kernels, not ${atK2.origin}`);
      near(atK2.before.summary.mean, 2.51, 0.01, 'demo mean row norm at k = 1 (2.510, scripts/data/README.md)');
      near(atK2.after.summary.mean, atK2.before.summary.mean / 2, 1e-4, 'mean row norm at k = 2');
      await panel.updateComplete;
      const histogram = inside<HTMLElement & { updateComplete: Promise<boolean> }>(panel, 'norm-histogram');
      await histogram.updateComplete;
      check(histogram.shadowRoot!.querySelectorAll('g[data-series="before"] rect').length >= 5, 'the k = 1 histogram is drawn');
      check(histogram.shadowRoot!.querySelectorAll('g[data-series="after"] rect').length > 0, 'the k = 2 histogram is drawn');
      check(new URLSearchParams(location.search).get('model') === 'demo', `model in the URL: ${location.search}`);

      const kControl = inside<KControl>(app, 'k-control');
      const k16 = allInside(kControl, '.presets button').find((b) => b.textContent?.trim() === 'k = 16') as
        HTMLButtonElement | undefined;
      check(k16, 'the k control offers k = 16');
      k16.click();
      await until('statistics at k = 16', () => settledStats(panel, 16) !== null);
      check(new URLSearchParams(location.search).get('k') === '16', `k = 16 in the URL: ${location.search}`);
      const atK16 = settledStats(panel, 16)!;
      near(atK16.after.summary.mean, atK2.before.summary.mean / 16, 1e-4, 'mean row norm at k = 16');
      check(kControl.k === 16, `the k control shows k = ${kControl.k}`);
    }));
});

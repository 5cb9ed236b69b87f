// <splade-app>: the whole shell with its real GPU worker on the bundled demo backbone (public/demo/, made by
// `npm run demo-backbone`): it loads the demo named in the URL, draws the head-norm panel, writes k back to the URL, and
// computes the live preview only once its tab is open.
import '../../src/ui/splade-app.ts';
import type { SpladeApp } from '../../src/ui/splade-app.ts';
import type { HeadNormPanel } from '../../src/ui/model/head-norm-panel.ts';
import type { KControl } from '../../src/ui/model/k-control.ts';
import type { ModelPicker } from '../../src/ui/model/model-picker.ts';
import { TaskStatus } from '@lit/task';
import { allInside, cleanup, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

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
  it('loads the demo named in the URL, draws the head-norm panel from the GPU, puts a new k in the URL, and computes the preview only once its tab is open', () =>
    withQuery('?model=demo&k=2', async () => {
      const app = await mount<SpladeApp>('splade-app', { demoUrl: DEMO_URL });
      const picker = inside<ModelPicker>(app, 'model-picker');
      await until('the demo to load', () => picker.summary !== null);
      expect(picker.summary?.synthetic, 'the demo is loaded and flagged synthetic').toBe(true);
      await picker.updateComplete;
      expect(inside(picker, '#model-label').textContent ?? '', 'the picker labels it as the demo').toMatch(/demo backbone/);

      const panel = inside<HeadNormPanel>(app, 'head-norm-panel');
      await until('statistics at k = 2', () => settledStats(panel, 2) !== null);
      const atK2 = settledStats(panel, 2)!;
      expect(atK2.origin, `figures measured by the GPU kernels, not ${atK2.origin}`).toBe('gpu');
      expect(
        Math.abs(atK2.before.summary.mean - 2.51),
        'demo mean row norm at k = 1 (2.510, scripts/data/README.md)',
      ).toBeLessThanOrEqual(0.01);
      expect(Math.abs(atK2.after.summary.mean - atK2.before.summary.mean / 2), 'mean row norm at k = 2').toBeLessThanOrEqual(
        1e-4,
      );
      await panel.updateComplete;
      const histogram = inside<HTMLElement & { updateComplete: Promise<boolean> }>(panel, 'norm-histogram');
      await histogram.updateComplete;
      expect(
        histogram.shadowRoot!.querySelectorAll('g[data-series="before"] rect').length,
        'the k = 1 histogram is drawn',
      ).toBeGreaterThanOrEqual(5);
      expect(
        histogram.shadowRoot!.querySelectorAll('g[data-series="after"] rect').length,
        'the k = 2 histogram is drawn',
      ).toBeGreaterThan(0);
      expect(new URLSearchParams(location.search).get('model'), `model in the URL: ${location.search}`).toBe('demo');

      const kControl = inside<KControl>(app, 'k-control');
      const k16 = allInside(kControl, '.presets button').find((b) => b.textContent?.trim() === 'k = 16') as
        | HTMLButtonElement
        | undefined;
      expect(k16, 'the k control offers k = 16').toBeTruthy();
      k16!.click();
      await until('statistics at k = 16', () => settledStats(panel, 16) !== null);
      expect(new URLSearchParams(location.search).get('k'), `k = 16 in the URL: ${location.search}`).toBe('16');
      const atK16 = settledStats(panel, 16)!;
      expect(Math.abs(atK16.after.summary.mean - atK2.before.summary.mean / 16), 'mean row norm at k = 16').toBeLessThanOrEqual(
        1e-4,
      );
      expect(kControl.k, `the k control shows k = ${kControl.k}`).toBe(16);

      // the live preview behind another tab encodes nothing; opening its tab computes it at the page's k
      const preview = (app as unknown as { views: { preview: { status: TaskStatus; value?: unknown } } }).views.preview;
      expect(preview.status, 'the hidden preview ran no encoding (it settled with nothing)').toBe(TaskStatus.COMPLETE);
      expect(preview.value ?? null, 'the hidden preview holds no vectors').toBe(null);
      inside<HTMLButtonElement>(app, '#tab-preview').click();
      await until('the preview at k = 16', () => preview.status === TaskStatus.COMPLETE && preview.value != null);
    }));
});

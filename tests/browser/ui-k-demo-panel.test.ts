// <k-demo-panel>: labelled as synthetic, keyboard-operable (type the ks, Enter runs; Tab reaches Cancel), draws one
// line per finished k in both charts, reports its settings for the URL, and refuses malformed k lists.
import { sendKeys } from '@web/test-runner-commands';
import '../../src/ui/model/k-demo-panel.ts';
import type { KDemoPanel } from '../../src/ui/model/k-demo-panel.ts';
import type { LossChart } from '../../src/ui/common/loss-chart.ts';
import type { TrainingClient } from '../../src/ui/training/training-client.ts';
import type { KDemoRequest, KDemoResult, KDemoSeries } from '../../src/worker/api.ts';
import { K_DEMO_SHAPE } from '../../src/contract/training/k-demo-results.ts';
import { allInside, check, cleanup, events, inside, mount, settle } from './ui-fixture.ts';

/** A worker stand-in: each k's losses scale with 1/k; the run waits for `release` after the first k. */
function fakeClient() {
  const calls: KDemoRequest[] = [];
  let cancels = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const client = {
    async kDemo(
      request: KDemoRequest,
      onRun: (run: KDemoSeries, index: number, total: number, finished: boolean) => void,
    ): Promise<KDemoResult> {
      calls.push(request);
      const runs = request.ks.map((k) => ({
        k,
        losses: [0, 1, 2].map((step) => ({
          step,
          rank: 1000 / k / (step + 1),
          flopsQueries: 50 / k,
          flopsDocuments: 1,
          total: 0,
        })),
      }));
      for (const [i, run] of runs.entries()) {
        onRun({ k: run.k, losses: run.losses.slice(0, 2) }, i, runs.length, false); // part of the line, then all of it
        onRun(run, i, runs.length, true);
        if (i === 0) await gate;
      }
      return { runs, shape: K_DEMO_SHAPE, provenance: 'synthetic data of the fake worker' };
    },
    async cancelJob() {
      cancels++;
    },
  } as unknown as TrainingClient;
  return { client, calls, cancels: () => cancels, release: () => release() };
}

describe('<k-demo-panel>', () => {
  it('says the data is synthetic and names the ks on its button', async () => {
    cleanup();
    const el = await mount<KDemoPanel>('k-demo-panel', { client: fakeClient().client, ks: [1, 16], steps: 60 });
    check(/Synthetic data/.test(inside(el, '#synthetic').textContent ?? ''), 'synthetic badge');
    check(
      inside(el, '#run-demo').textContent?.trim() === 'Train k = 1 and k = 16 side by side',
      inside(el, '#run-demo').textContent ?? '',
    );
    check(
      /L = L\s*rank/.test(inside(el, 'panel-explainer').textContent?.replace(/\s+/g, ' ') ?? ''),
      'the explainer has the formula',
    );
  });

  it('is keyboard operable: type ks and Enter runs them; lines appear per finished k; Tab then Enter cancels', async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<KDemoPanel>('k-demo-panel', { client: fake.client, ks: [1, 16], steps: 12 });
    const settings = events<{ ks: number[]; steps: number }>(el, 'demo-settings-change');
    const ks = inside<HTMLInputElement>(el, '#ks');
    ks.focus();
    ks.select();
    await sendKeys({ type: '2, 8' });
    await sendKeys({ press: 'Enter' });
    await settle(el);
    check(
      fake.calls.length === 1 && fake.calls[0].ks.join(',') === '2,8' && fake.calls[0].steps === 12,
      `kDemo called with ${JSON.stringify(fake.calls)}`,
    );
    check(settings.at(-1)?.ks.join(',') === '2,8', `settings reported: ${JSON.stringify(settings)}`);
    const rank = inside<LossChart>(el, '#rank-chart');
    await rank.updateComplete;
    check(allInside(rank, 'g.series').length === 1, 'one line while the second k trains');
    check(
      /training k = 8 \(2 of 2\)/.test(inside(el, '#demo-status').textContent ?? ''),
      inside(el, '#demo-status').textContent ?? '',
    );

    // Focus is on the ks field: Tab passes the steps field and the (disabled) run button to reach Cancel.
    for (let i = 0; i < 3 && el.shadowRoot?.activeElement?.id !== 'cancel-demo'; i++) await sendKeys({ press: 'Tab' });
    check(el.shadowRoot?.activeElement?.id === 'cancel-demo', `focus on ${el.shadowRoot?.activeElement?.id}`);
    await sendKeys({ press: 'Enter' });
    check(fake.cancels() === 1, 'Enter on Cancel cancels');
    fake.release();
    await settle(el);
    await rank.updateComplete;
    const flops = inside<LossChart>(el, '#flops-chart');
    await flops.updateComplete;
    check(allInside(rank, 'g.series').length === 2 && allInside(flops, 'g.series').length === 2, 'both charts draw a line per k');
    check(/k = 2: 500 at step 1/.test(inside(rank, '#summary').textContent ?? ''), inside(rank, '#summary').textContent ?? '');
    check(
      /Figures from synthetic data of the fake worker\./.test(inside(el, '#demo-provenance').textContent ?? ''),
      'the caption names what the worker trained on',
    );
  });

  it('refuses a malformed k list without running', async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<KDemoPanel>('k-demo-panel', { client: fake.client, ks: [1, 16], steps: 12 });
    inside<HTMLInputElement>(el, '#ks').value = '1, zero';
    inside<HTMLButtonElement>(el, '#run-demo').click();
    await settle(el);
    check(fake.calls.length === 0, 'not run');
    check(
      inside(el, '#ks').getAttribute('aria-invalid') === 'true' && !inside(el, '#ks-help').hidden,
      'the field is marked invalid with help',
    );
  });
});

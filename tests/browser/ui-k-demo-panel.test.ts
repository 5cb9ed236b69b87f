// <k-demo-panel>: labelled as synthetic, keyboard-operable (type the ks, Enter runs; Tab reaches Cancel), draws one
// line per finished k in both charts, reports its settings for the URL, and refuses malformed k lists.
import { sendKeys } from '@web/test-runner-commands';
import '../../src/ui/model/k-demo-panel.ts';
import type { KDemoPanel } from '../../src/ui/model/k-demo-panel.ts';
import type { LossChart } from '../../src/ui/common/loss-chart.ts';
import type { TrainingClient } from '../../src/ui/training/training-client.ts';
import type { KDemoRequest, KDemoResult, KDemoSeries } from '../../src/worker/api.ts';
import { K_DEMO_SHAPE } from '../../src/contract/training/k-demo-results.ts';
import { allInside, cleanup, events, inside, mount, settle } from './ui-fixture.ts';
import { expect } from './expect.ts';

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
    expect(inside(el, '#synthetic').textContent ?? '', 'synthetic badge').toMatch(/Synthetic data/);
    expect(inside(el, '#run-demo').textContent?.trim(), inside(el, '#run-demo').textContent ?? '').toBe(
      'Train k = 1 and k = 16 side by side',
    );
    expect(inside(el, 'panel-explainer').textContent?.replace(/\s+/g, ' ') ?? '', 'the explainer has the formula').toMatch(
      /L = L\s*rank/,
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
    expect(fake.calls, `kDemo called with ${JSON.stringify(fake.calls)}`).toHaveLength(1);
    expect(fake.calls[0].ks.join(','), `kDemo called with ${JSON.stringify(fake.calls)}`).toBe('2,8');
    expect(fake.calls[0].steps, `kDemo called with ${JSON.stringify(fake.calls)}`).toBe(12);
    expect(settings.at(-1)?.ks.join(','), `settings reported: ${JSON.stringify(settings)}`).toBe('2,8');
    const rank = inside<LossChart>(el, '#rank-chart');
    await rank.updateComplete;
    expect(allInside(rank, 'g.series'), 'one line while the second k trains').toHaveLength(1);
    expect(inside(el, '#demo-status').textContent ?? '', inside(el, '#demo-status').textContent ?? '').toMatch(
      /training k = 8 \(2 of 2\)/,
    );

    // Focus is on the ks field: Tab passes the steps field and the (disabled) run button to reach Cancel.
    for (let i = 0; i < 3 && el.shadowRoot?.activeElement?.id !== 'cancel-demo'; i++) await sendKeys({ press: 'Tab' });
    expect(el.shadowRoot?.activeElement?.id, `focus on ${el.shadowRoot?.activeElement?.id}`).toBe('cancel-demo');
    await sendKeys({ press: 'Enter' });
    expect(fake.cancels(), 'Enter on Cancel cancels').toBe(1);
    fake.release();
    await settle(el);
    await rank.updateComplete;
    const flops = inside<LossChart>(el, '#flops-chart');
    await flops.updateComplete;
    expect(allInside(rank, 'g.series'), 'both charts draw a line per k').toHaveLength(2);
    expect(allInside(flops, 'g.series'), 'both charts draw a line per k').toHaveLength(2);
    expect(inside(rank, '#summary').textContent ?? '', inside(rank, '#summary').textContent ?? '').toMatch(
      /k = 2: 500 at step 1/,
    );
    expect(inside(el, '#demo-provenance').textContent ?? '', 'the caption names what the worker trained on').toMatch(
      /Figures from synthetic data of the fake worker\./,
    );
  });

  it('refuses a malformed k list without running', async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<KDemoPanel>('k-demo-panel', { client: fake.client, ks: [1, 16], steps: 12 });
    inside<HTMLInputElement>(el, '#ks').value = '1, zero';
    inside<HTMLButtonElement>(el, '#run-demo').click();
    await settle(el);
    expect(fake.calls, 'not run').toHaveLength(0);
    expect(inside(el, '#ks').getAttribute('aria-invalid'), 'the field is marked invalid with help').toBe('true');
    expect(inside(el, '#ks-help').hidden, 'the field is marked invalid with help').toBeFalsy();
  });
});

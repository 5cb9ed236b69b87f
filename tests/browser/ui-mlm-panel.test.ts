// <mlm-panel>: sends the form as a masked-LM request (the lesson's text or a picked file), draws the loss and the head's
// row norms from the worker's events, offers Resume for a run with a checkpoint, refuses a masking probability of 0 at
// the field, and hands the trained run to the page ("use-mlm-model"); the demo's head starts divided by 5, the time
// left is shown as it trains, and a run whose rows barely moved says so and what to do.
import '../../src/ui/training/mlm-panel.ts';
import type { MlmPanel } from '../../src/ui/training/mlm-panel.ts';
import type { LossChart } from '../../src/ui/common/loss-chart.ts';
import type { TrainingClient } from '../../src/ui/training/training-client.ts';
import type { HeadGrowth, MlmEvent, MlmStepReport, ModelSummary, PageMlmRequest, PageMlmResult } from '../../src/worker/api.ts';
import { cleanup, events, inside, mount, settle } from './ui-fixture.ts';
import { expect } from './expect.ts';

const SUMMARY = { label: 'demo backbone', name: 'demo', synthetic: true } as unknown as ModelSummary;

function report(step: number, loss: number): MlmStepReport {
  return {
    step,
    loss,
    accuracy: 0.1,
    logitScale: 2 + step,
    predicted: 10,
    gradNorm: 1,
    lr: 1e-3,
    msPerStep: 2000,
  } as unknown as MlmStepReport;
}

function growth(step: number, meanRowNorm: number): HeadGrowth {
  return { step, meanRowNorm, p99RowNorm: meanRowNorm * 1.2, maxRowNorm: meanRowNorm * 2, anisotropy: 0.1 };
}

/**
 * A worker stand-in: three reports with the head growing by `grow` a step, then the run's key; a checkpoint at
 * `checkpointStep`; `seen` is told after the first report, once the page had a turn to show it.
 */
function fakeClient(checkpointStep: number | null = null, grow = 0.1, seen?: () => Promise<void>) {
  const calls: PageMlmRequest[] = [];
  const client = {
    async mlm(request: PageMlmRequest, onEvent: (event: MlmEvent) => void): Promise<PageMlmResult> {
      calls.push(request);
      const start = request.resume ? (checkpointStep ?? 0) : 0;
      onEvent({ kind: 'head', growth: growth(start, 0.5) });
      for (let step = start; step < start + 3; step++) {
        onEvent({ kind: 'report', report: report(step, 9 - step) });
        if (step === start) await seen?.();
        onEvent({ kind: 'head', growth: growth(step + 1, 0.5 + grow * (step + 1)) });
      }
      return { run: 'mlm | fake', startStep: start, step: start + 3, msPerStep: 12, growth: [] };
    },
    async mlmCheckpoint() {
      return checkpointStep;
    },
    async cancelJob() {},
  } as unknown as TrainingClient;
  return { client, calls };
}

describe('<mlm-panel>', () => {
  it('trains on the lesson text with the form: the loss and the row norms are drawn; the trained model can be used', async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<MlmPanel>('mlm-panel', { client: fake.client, summary: SUMMARY });
    inside<HTMLInputElement>(el, '#mlm-steps').value = '3';
    inside<HTMLInputElement>(el, '#mlm-peakLr').value = '0.0005';
    const used = events<{ run: string }>(el, 'use-mlm-model');
    inside<HTMLButtonElement>(el, '#mlm-start').click();
    await settle(el);
    const request = fake.calls[0];
    expect(request?.text.kind, `the lesson text by default: ${JSON.stringify(request)}`).toBe('lesson');
    expect(request.steps, `the form's numbers: ${JSON.stringify(request)}`).toBe(3);
    expect(request.peakLr, `the form's numbers: ${JSON.stringify(request)}`).toBe(0.0005);
    expect(request.batchSize, `the form's numbers: ${JSON.stringify(request)}`).toBe(8);
    expect(request.mlmProbability, `the form's numbers: ${JSON.stringify(request)}`).toBe(0.15);
    expect(request.layout, 'full blocks, a new run').toBe('grouped');
    expect(request.resume, 'full blocks, a new run').toBe(false);
    const loss = inside<LossChart>(el, '#mlm-loss-chart');
    const norms = inside<LossChart>(el, '#mlm-norm-chart');
    expect(loss.series[0].points.map((p) => p.y).join(','), `loss points: ${JSON.stringify(loss.series[0].points)}`).toBe(
      '9,8,7',
    );
    expect(
      norms.series[0].points.map((p) => `${p.x}:${p.y.toFixed(1)}`).join(','),
      `norm points: ${JSON.stringify(norms.series[0].points)}`,
    ).toBe('0:0.5,1:0.6,2:0.7,3:0.8');
    const status = inside(el, '#mlm-status').textContent ?? '';
    expect(status, status).toMatch(/Done: 3 steps/);
    expect(status, status).toMatch(/from 0\.500 to 0\.800/);
    inside<HTMLButtonElement>(el, '#mlm-use').click();
    expect(used.at(-1)?.run, `use-mlm-model: ${JSON.stringify(used)}`).toBe('mlm | fake');
  });

  it("starts the demo's already-long head divided by 5 (another model's as loaded), and sends the divisor", async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<MlmPanel>('mlm-panel', { client: fake.client, summary: SUMMARY });
    expect(
      inside<HTMLInputElement>(el, '#mlm-k').value,
      `the demo's divisor: ${inside<HTMLInputElement>(el, '#mlm-k').value}`,
    ).toBe('5');
    expect(inside(el, '#mlm-k-note').textContent ?? '', 'the note says what k does').toMatch(/starts divided by k = 5/);
    inside<HTMLInputElement>(el, '#mlm-steps').value = '3';
    inside<HTMLButtonElement>(el, '#mlm-start').click();
    await settle(el);
    expect(fake.calls[0]?.k, `k sent: ${JSON.stringify(fake.calls[0])}`).toBe(5);
    const other = await mount<MlmPanel>('mlm-panel', {
      client: fake.client,
      summary: { ...SUMMARY, name: 'bert', synthetic: false } as ModelSummary,
    });
    expect(inside<HTMLInputElement>(other, '#mlm-k').value, "another model's head as loaded").toBe('1');
    expect(inside(other, '#mlm-k-note').textContent ?? '', 'k = 1 says a long head stays flat').toMatch(/flat lines/);
  });

  it('says the time left while it trains, measured per step', async () => {
    cleanup();
    let status = '';
    let el: MlmPanel | null = null;
    const fake = fakeClient(null, 0.1, async () => {
      await settle(el!);
      status = inside(el!, '#mlm-status').textContent ?? '';
    });
    el = await mount<MlmPanel>('mlm-panel', { client: fake.client, summary: SUMMARY });
    inside<HTMLInputElement>(el, '#mlm-steps').value = '31';
    inside<HTMLButtonElement>(el, '#mlm-start').click();
    await settle(el, 10);
    // step 1 of 31 at 2 s a step: 30 steps left, 1 min
    expect(status, status).toMatch(/Step 1 of 31 · about 2\.0 s per step .* 1 min left/);
  });

  it('a run whose rows barely moved says so, and to start from a divided head', async () => {
    cleanup();
    const fake = fakeClient(null, 0.0001);
    const el = await mount<MlmPanel>('mlm-panel', {
      client: fake.client,
      summary: { ...SUMMARY, synthetic: false } as ModelSummary,
    });
    inside<HTMLInputElement>(el, '#mlm-steps').value = '3';
    inside<HTMLButtonElement>(el, '#mlm-start').click();
    await settle(el);
    const status = inside(el, '#mlm-status').textContent ?? '';
    expect(status, status).toMatch(/\(\+0\.1%\)/);
    expect(status, status).toMatch(/barely moved/);
    expect(status, status).toMatch(/divided by k/);
  });

  it('offers Resume from the checkpoint the worker has, and resumes with the same settings', async () => {
    cleanup();
    const fake = fakeClient(20);
    const el = await mount<MlmPanel>('mlm-panel', { client: fake.client, summary: SUMMARY });
    await settle(el);
    const resume = inside<HTMLButtonElement>(el, '#mlm-resume');
    expect(resume.textContent ?? '', resume.textContent ?? '').toMatch(/Resume from step 20/);
    resume.click();
    await settle(el);
    expect(fake.calls[0]?.resume, `resumed: ${JSON.stringify(fake.calls[0])}`).toBe(true);
    const loss = inside<LossChart>(el, '#mlm-loss-chart');
    expect(
      loss.series[0].points[0].x,
      `the resumed run's first report is step 21: ${JSON.stringify(loss.series[0].points)}`,
    ).toBe(21);
  });

  it('refuses a masking probability of 0 at its field and sends nothing; without a model the button is disabled', async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<MlmPanel>('mlm-panel', { client: fake.client, summary: SUMMARY });
    const field = inside<HTMLInputElement>(el, '#mlm-mlmProbability');
    field.value = '0';
    inside<HTMLButtonElement>(el, '#mlm-start').click();
    await settle(el);
    expect(fake.calls, 'nothing was sent').toHaveLength(0);
    expect(field.validationMessage, field.validationMessage).toMatch(/Masking probability must be/);
    const empty = await mount<MlmPanel>('mlm-panel', { client: fake.client, summary: null });
    expect(inside<HTMLButtonElement>(empty, '#mlm-start').disabled, 'no model: disabled').toBeTruthy();
  });
});

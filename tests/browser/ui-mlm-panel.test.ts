// <mlm-panel>: sends the form as a masked-LM request (the lesson's text or a picked file), draws the loss and the head's
// row norms from the worker's events, offers Resume for a run with a checkpoint, refuses a masking probability of 0 at
// the field, and hands the trained run to the page ("use-mlm-model"); the demo's head starts divided by 5, the time
// left is shown as it trains, and a run whose rows barely moved says so and what to do.
import '../../src/ui/training/mlm-panel.ts';
import type { MlmPanel } from '../../src/ui/training/mlm-panel.ts';
import type { LossChart } from '../../src/ui/common/loss-chart.ts';
import type { TrainingClient } from '../../src/ui/training/training-client.ts';
import type { HeadGrowth, MlmEvent, MlmStepReport, ModelSummary, PageMlmRequest, PageMlmResult } from '../../src/worker/api.ts';
import { check, cleanup, events, inside, mount, settle } from './ui-fixture.ts';

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
    check(request?.text.kind === 'lesson', `the lesson text by default: ${JSON.stringify(request)}`);
    check(
      request.steps === 3 && request.peakLr === 0.0005 && request.batchSize === 8 && request.mlmProbability === 0.15,
      `the form's numbers: ${JSON.stringify(request)}`,
    );
    check(request.layout === 'grouped' && request.resume === false, 'full blocks, a new run');
    const loss = inside<LossChart>(el, '#mlm-loss-chart');
    const norms = inside<LossChart>(el, '#mlm-norm-chart');
    check(loss.series[0].points.map((p) => p.y).join(',') === '9,8,7', `loss points: ${JSON.stringify(loss.series[0].points)}`);
    check(
      norms.series[0].points.map((p) => `${p.x}:${p.y.toFixed(1)}`).join(',') === '0:0.5,1:0.6,2:0.7,3:0.8',
      `norm points: ${JSON.stringify(norms.series[0].points)}`,
    );
    const status = inside(el, '#mlm-status').textContent ?? '';
    check(/Done: 3 steps/.test(status) && /from 0\.500 to 0\.800/.test(status), status);
    inside<HTMLButtonElement>(el, '#mlm-use').click();
    check(used.at(-1)?.run === 'mlm | fake', `use-mlm-model: ${JSON.stringify(used)}`);
  });

  it("starts the demo's already-long head divided by 5 (another model's as loaded), and sends the divisor", async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<MlmPanel>('mlm-panel', { client: fake.client, summary: SUMMARY });
    check(
      inside<HTMLInputElement>(el, '#mlm-k').value === '5',
      `the demo's divisor: ${inside<HTMLInputElement>(el, '#mlm-k').value}`,
    );
    check(/starts divided by k = 5/.test(inside(el, '#mlm-k-note').textContent ?? ''), 'the note says what k does');
    inside<HTMLInputElement>(el, '#mlm-steps').value = '3';
    inside<HTMLButtonElement>(el, '#mlm-start').click();
    await settle(el);
    check(fake.calls[0]?.k === 5, `k sent: ${JSON.stringify(fake.calls[0])}`);
    const other = await mount<MlmPanel>('mlm-panel', {
      client: fake.client,
      summary: { ...SUMMARY, name: 'bert', synthetic: false } as ModelSummary,
    });
    check(inside<HTMLInputElement>(other, '#mlm-k').value === '1', "another model's head as loaded");
    check(/flat lines/.test(inside(other, '#mlm-k-note').textContent ?? ''), 'k = 1 says a long head stays flat');
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
    check(/Step 1 of 31 · about 2\.0 s per step .* 1 min left/.test(status), status);
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
    check(/\(\+0\.1%\)/.test(status) && /barely moved/.test(status) && /divided by k/.test(status), status);
  });

  it('offers Resume from the checkpoint the worker has, and resumes with the same settings', async () => {
    cleanup();
    const fake = fakeClient(20);
    const el = await mount<MlmPanel>('mlm-panel', { client: fake.client, summary: SUMMARY });
    await settle(el);
    const resume = inside<HTMLButtonElement>(el, '#mlm-resume');
    check(/Resume from step 20/.test(resume.textContent ?? ''), resume.textContent ?? '');
    resume.click();
    await settle(el);
    check(fake.calls[0]?.resume === true, `resumed: ${JSON.stringify(fake.calls[0])}`);
    const loss = inside<LossChart>(el, '#mlm-loss-chart');
    check(
      loss.series[0].points[0].x === 21,
      `the resumed run's first report is step 21: ${JSON.stringify(loss.series[0].points)}`,
    );
  });

  it('refuses a masking probability of 0 at its field and sends nothing; without a model the button is disabled', async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<MlmPanel>('mlm-panel', { client: fake.client, summary: SUMMARY });
    const field = inside<HTMLInputElement>(el, '#mlm-mlmProbability');
    field.value = '0';
    inside<HTMLButtonElement>(el, '#mlm-start').click();
    await settle(el);
    check(fake.calls.length === 0, 'nothing was sent');
    check(/Masking probability must be/.test(field.validationMessage), field.validationMessage);
    const empty = await mount<MlmPanel>('mlm-panel', { client: fake.client, summary: null });
    check(inside<HTMLButtonElement>(empty, '#mlm-start').disabled, 'no model: disabled');
  });
});

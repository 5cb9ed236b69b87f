// <lambda-panel>: the converter (naver/splade's in-batch NLL values to splade-lab, a distillation loss refused), and
// the calibrator sending its request and listing the trials and the suggestion; both hand their lambdas on.
import { CALIBRATE_DEFAULTS } from '../../src/contract/experiments/calibration.ts';
import type { LambdaClient, LambdaPanel } from '../../src/ui/experiments/lambda-panel.ts';
import '../../src/ui/experiments/lambda-panel.ts';
import type {
  CalibrationEvent,
  CalibrationTrial,
  ModelSummary,
  PageCalibrationRequest,
  TripletsSummary,
} from '../../src/worker/api.ts';
import { allInside, cleanup, events, inside, mount, settle } from './ui-fixture.ts';
import { expect } from './expect.ts';

const SUMMARY = { name: 'demo', label: 'demo', synthetic: true } as ModelSummary;
const TRIPLETS = { name: 't.tsv', triplets: 10, bytes: 100, blankLines: 0, header: false, crc32: 1 } as TripletsSummary;

function trial(index: number, lq: number, active: number): CalibrationTrial {
  return {
    index,
    runId: `run ${index}`,
    purpose: 'search',
    batchSize: 8,
    lambdaQueries: lq,
    lambdaDocuments: lq / 10,
    activeQueries: active,
    activeDocuments: active * 4,
    flopsQueries: 5,
    flopsDocuments: 9,
    paperBatchFlopsQueries: 4,
    paperBatchFlopsDocuments: 8,
    rank: 1,
    measuredReports: 3,
    evaluations: [],
  };
}

describe('<lambda-panel>', () => {
  it('converts naver/splade values, says what cannot be converted, and hands converted lambdas to training', async () => {
    cleanup();
    const el = await mount<LambdaPanel>('lambda-panel', { client: null, summary: SUMMARY, triplets: TRIPLETS });
    const picked = events<{ lambdaQueries: number; lambdaDocuments: number }>(el, 'lambdas-pick');
    const select = inside<HTMLSelectElement>(el, '#convention');
    select.value = 'naver-splade';
    select.dispatchEvent(new Event('change'));
    await el.updateComplete;
    expect(inside(el, '#convention-facts').textContent ?? '', inside(el, '#convention-facts').textContent ?? '').toMatch(
      /naver\/splade/,
    );
    inside<HTMLInputElement>(el, '#from-lq').value = '3e-4';
    inside<HTMLInputElement>(el, '#from-ld').value = '1e-4';
    inside<HTMLInputElement>(el, '#from-batch').value = '128';
    inside<HTMLButtonElement>(el, '#convert').click();
    await el.updateComplete;
    const text = inside(el, '#conversion').textContent ?? '';
    expect(text, JSON.stringify(text)).toMatch(/lambda_q 3e-4, lambda_d 1e-4/);
    expect(text, JSON.stringify(text)).toMatch(/128 rows in the source and 8 in the target/);
    inside<HTMLButtonElement>(el, '#use-converted').click();
    expect(picked, JSON.stringify(picked)).toHaveLength(1);
    expect(picked[0].lambdaQueries, JSON.stringify(picked)).toBe(3e-4);
    expect(picked[0].lambdaDocuments, JSON.stringify(picked)).toBe(1e-4);
    inside<HTMLSelectElement>(el, '#from-loss').value = 'distillation';
    inside<HTMLButtonElement>(el, '#convert').click();
    await el.updateComplete;
    expect(inside(el, '#conversion').textContent ?? '', inside(el, '#conversion').textContent ?? '').toMatch(
      /No formula carries these values/,
    );
    // a bad field is said beside the converter, not in the calibrator's status
    inside<HTMLInputElement>(el, '#from-batch').value = '0';
    inside<HTMLButtonElement>(el, '#convert').click();
    await el.updateComplete;
    expect(inside(el, '#conversion-error').textContent ?? '', inside(el, '#conversion-error').textContent ?? '').toMatch(
      /source batch per device must be a whole number of at least 1, got 0/,
    );
    expect(el.shadowRoot?.querySelector('#calibration-error'), 'no calibration error').toBeFalsy();
  });

  it('sends the calibration request and lists each trial and the suggested lambdas', async () => {
    cleanup();
    const sent: PageCalibrationRequest[] = [];
    const client = {
      async calibrate(request: PageCalibrationRequest, onEvent: (event: CalibrationEvent) => void) {
        sent.push(request);
        const trials = [trial(0, 0.05, 400), trial(1, 0.5, 41)];
        for (const t of trials) onEvent({ kind: 'trial-done', trial: t });
        return {
          target: request.target,
          trials,
          suggested: { lambdaQueries: 0.5, lambdaDocuments: 0.05, trial: 1, within: true },
          batchDependence: [trials[1]],
        };
      },
      async cancelJob() {},
    } as unknown as LambdaClient;
    const recipe = () => ({
      dropout: 0,
      warmupRatio: 0.2,
      maxGradNorm: 0,
      gradAccum: 2,
      optimizer: 'sgd' as const,
      flopsOver: 'step' as const,
    });
    const el = await mount<LambdaPanel>('lambda-panel', { client, summary: SUMMARY, triplets: TRIPLETS, k: 4, recipe });
    const picked = events<{ lambdaQueries: number }>(el, 'lambdas-pick');
    inside<HTMLInputElement>(el, '#cal-targetQueries').value = '40';
    inside<HTMLInputElement>(el, '#cal-steps').value = '30';
    inside<HTMLInputElement>(el, '#cal-peakLr').value = '5e-3';
    inside<HTMLInputElement>(el, '#cal-queryLength').value = '16';
    inside<HTMLButtonElement>(el, '#calibrate').click();
    await settle(el);
    const t = sent[0]?.train;
    expect(t, JSON.stringify(sent)).toBeTruthy();
    expect(t.k, JSON.stringify(sent)).toBe(4);
    expect(t.steps, JSON.stringify(sent)).toBe(30);
    expect(t.peakLr, JSON.stringify(sent)).toBe(5e-3);
    expect(t.queryLength, JSON.stringify(sent)).toBe(16);
    expect(t.documentLength, JSON.stringify(sent)).toBe(128);
    // the trials train with the training form's recipe
    expect(t.dropout, JSON.stringify(t)).toBe(0);
    expect(t.warmupRatio, JSON.stringify(t)).toBe(0.2);
    expect(t.maxGradNorm, JSON.stringify(t)).toBe(0);
    expect(t.gradAccum, JSON.stringify(t)).toBe(2);
    expect(t.optimizer, JSON.stringify(t)).toBe('sgd');
    expect(t.flopsOver, JSON.stringify(t)).toBe('step');
    // the calibrator's defaults are the CLI's (CALIBRATE_DEFAULTS)
    expect(sent[0].target.queries, JSON.stringify(sent)).toBe(40);
    expect(sent[0].target.documents, JSON.stringify(sent)).toBe(150);
    expect(sent[0].target.tolerance, JSON.stringify(sent)).toBe(0.2);
    expect(sent[0].maxTrials, JSON.stringify(sent)).toBe(CALIBRATE_DEFAULTS.trials);
    expect(allInside(el, '#calibration-trials tbody tr'), 'two trial rows').toHaveLength(2);
    expect(inside(el, '#suggested').textContent ?? '', inside(el, '#suggested').textContent ?? '').toMatch(
      /Suggested: lambda_q 0\.5/,
    );
    expect(inside(el, '#calibration-status').textContent ?? '', inside(el, '#calibration-status').textContent ?? '').toMatch(
      /the target is reached/,
    );
    inside<HTMLButtonElement>(el, '#use-suggested').click();
    expect(picked, JSON.stringify(picked)).toHaveLength(1);
    expect(picked[0].lambdaQueries, JSON.stringify(picked)).toBe(0.5);
  });

  it('refuses a target out of range', async () => {
    cleanup();
    let calls = 0;
    const client = { calibrate: async () => void calls++, cancelJob: async () => {} } as unknown as LambdaClient;
    const el = await mount<LambdaPanel>('lambda-panel', { client, summary: SUMMARY, triplets: TRIPLETS });
    inside<HTMLInputElement>(el, '#cal-tolerance').value = '0';
    inside<HTMLButtonElement>(el, '#calibrate').click();
    await settle(el);
    expect(inside<HTMLInputElement>(el, '#cal-tolerance').validity.valid, 'the tolerance field is marked invalid').toBeFalsy();
    expect(calls, `the worker was not asked to calibrate (${calls} calls)`).toBe(0);
  });

  it('does not calibrate while the training form holds a bad recipe field', async () => {
    cleanup();
    let calls = 0;
    const client = { calibrate: async () => void calls++, cancelJob: async () => {} } as unknown as LambdaClient;
    const el = await mount<LambdaPanel>('lambda-panel', { client, summary: SUMMARY, triplets: TRIPLETS, recipe: () => null });
    inside<HTMLButtonElement>(el, '#calibrate').click();
    await settle(el);
    expect(calls, `the worker was not asked to calibrate (${calls} calls)`).toBe(0);
  });
});

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
import { allInside, check, cleanup, events, inside, mount, settle } from './ui-fixture.ts';

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
    check(
      /naver\/splade/.test(inside(el, '#convention-facts').textContent ?? ''),
      inside(el, '#convention-facts').textContent ?? '',
    );
    inside<HTMLInputElement>(el, '#from-lq').value = '3e-4';
    inside<HTMLInputElement>(el, '#from-ld').value = '1e-4';
    inside<HTMLInputElement>(el, '#from-batch').value = '128';
    inside<HTMLButtonElement>(el, '#convert').click();
    await el.updateComplete;
    const text = inside(el, '#conversion').textContent ?? '';
    check(
      /lambda_q 3e-4, lambda_d 1e-4/.test(text) && /128 rows in the source and 8 in the target/.test(text),
      JSON.stringify(text),
    );
    inside<HTMLButtonElement>(el, '#use-converted').click();
    check(picked.length === 1 && picked[0].lambdaQueries === 3e-4 && picked[0].lambdaDocuments === 1e-4, JSON.stringify(picked));
    inside<HTMLSelectElement>(el, '#from-loss').value = 'distillation';
    inside<HTMLButtonElement>(el, '#convert').click();
    await el.updateComplete;
    check(
      /No formula carries these values/.test(inside(el, '#conversion').textContent ?? ''),
      inside(el, '#conversion').textContent ?? '',
    );
    // a bad field is said beside the converter, not in the calibrator's status
    inside<HTMLInputElement>(el, '#from-batch').value = '0';
    inside<HTMLButtonElement>(el, '#convert').click();
    await el.updateComplete;
    check(
      /source batch per device must be a whole number of at least 1, got 0/.test(
        inside(el, '#conversion-error').textContent ?? '',
      ),
      inside(el, '#conversion-error').textContent ?? '',
    );
    check(!el.shadowRoot?.querySelector('#calibration-error'), 'no calibration error');
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
    check(
      t && t.k === 4 && t.steps === 30 && t.peakLr === 5e-3 && t.queryLength === 16 && t.documentLength === 128,
      JSON.stringify(sent),
    );
    // the trials train with the training form's recipe
    check(
      t.dropout === 0 &&
        t.warmupRatio === 0.2 &&
        t.maxGradNorm === 0 &&
        t.gradAccum === 2 &&
        t.optimizer === 'sgd' &&
        t.flopsOver === 'step',
      JSON.stringify(t),
    );
    // the calibrator's defaults are the CLI's (CALIBRATE_DEFAULTS)
    check(
      sent[0].target.queries === 40 &&
        sent[0].target.documents === 150 &&
        sent[0].target.tolerance === 0.2 &&
        sent[0].maxTrials === CALIBRATE_DEFAULTS.trials,
      JSON.stringify(sent),
    );
    check(allInside(el, '#calibration-trials tbody tr').length === 2, 'two trial rows');
    check(
      /Suggested: lambda_q 0\.5/.test(inside(el, '#suggested').textContent ?? ''),
      inside(el, '#suggested').textContent ?? '',
    );
    check(
      /the target is reached/.test(inside(el, '#calibration-status').textContent ?? ''),
      inside(el, '#calibration-status').textContent ?? '',
    );
    inside<HTMLButtonElement>(el, '#use-suggested').click();
    check(picked.length === 1 && picked[0].lambdaQueries === 0.5, JSON.stringify(picked));
  });

  it('refuses a target out of range', async () => {
    cleanup();
    let calls = 0;
    const client = { calibrate: async () => void calls++, cancelJob: async () => {} } as unknown as LambdaClient;
    const el = await mount<LambdaPanel>('lambda-panel', { client, summary: SUMMARY, triplets: TRIPLETS });
    inside<HTMLInputElement>(el, '#cal-tolerance').value = '0';
    inside<HTMLButtonElement>(el, '#calibrate').click();
    await settle(el);
    check(!inside<HTMLInputElement>(el, '#cal-tolerance').validity.valid, 'the tolerance field is marked invalid');
    check(calls === 0, `the worker was not asked to calibrate (${calls} calls)`);
  });

  it('does not calibrate while the training form holds a bad recipe field', async () => {
    cleanup();
    let calls = 0;
    const client = { calibrate: async () => void calls++, cancelJob: async () => {} } as unknown as LambdaClient;
    const el = await mount<LambdaPanel>('lambda-panel', { client, summary: SUMMARY, triplets: TRIPLETS, recipe: () => null });
    inside<HTMLButtonElement>(el, '#calibrate').click();
    await settle(el);
    check(calls === 0, `the worker was not asked to calibrate (${calls} calls)`);
  });
});

// <train-panel>: a bad triplet file is explained with its file and line; a saved checkpoint offers "Resume run from
// step N" (keyboard); reports draw the loss and active-dimension lines with a time-per-step estimate and provenance.
import { sendKeys } from '@web/test-runner-commands';
import { parseTriplets } from '../../src/io/triplets.ts';
import type { StepReport } from '../../src/train/training-run.ts';
import { paperRecipe } from '../../src/train/trainer.ts';
import type { LossChart } from '../../src/ui/loss-chart.ts';
import '../../src/ui/train-panel.ts';
import type { TrainPanel } from '../../src/ui/train-panel.ts';
import type { TrainingClient } from '../../src/ui/training-client.ts';
import type { CheckpointInfo, ModelSummary, TrainEvent, TrainRequest, TrainResult } from '../../src/worker/api.ts';
import { allInside, check, cleanup, inside, mount } from './ui-fixture.ts';

const SUMMARY = { name: 'demo', label: 'synthetic demo backbone', synthetic: true } as ModelSummary;

function report(step: number): StepReport {
  return {
    step,
    rank: 2 - step / 10,
    flopsQueries: 10,
    flopsDocuments: 20,
    total: 3 - step / 10,
    steps: 10,
    lr: 1e-4,
    lambdaQueries: 0,
    lambdaDocuments: 0,
    activeQueries: 300 - step,
    activeDocuments: 900 - step,
    paperBatchFlopsQueries: 9,
    paperBatchFlopsDocuments: 19,
    squaredNormQueries: 30,
    squaredNormDocuments: 40,
    msPerStep: 250,
    position: { epoch: 0, index: 0 },
  };
}

/** A worker stand-in that parses files with the real reader and trains by replaying reports. */
function fakeClient(checkpoint: CheckpointInfo | null) {
  const trained: TrainRequest[] = [];
  const client = {
    async readTriplets(file: File) {
      const parsed = parseTriplets(await file.text(), file.name);
      return { name: file.name, triplets: parsed.triplets.length, bytes: file.size, blankLines: parsed.blankLines, header: parsed.header, crc32: 1 };
    },
    async trainingCheckpoint() {
      return checkpoint;
    },
    async train(request: TrainRequest, onEvent: (event: TrainEvent) => void): Promise<TrainResult> {
      trained.push(request);
      const startStep = request.resume ? (checkpoint?.step ?? 0) : 0;
      onEvent({ kind: 'start', startStep, resumedFrom: null, recipe: paperRecipe(10, request.batchSize), k: request.k, seed: 1, provenance: 'the fake backbone on fake.tsv' });
      for (let t = startStep; t < 10; t++) onEvent({ kind: 'report', report: report(t) });
      return { startStep, step: 10, msPerStep: 250 };
    },
    async cancelJob() {},
  } as unknown as TrainingClient;
  return { client, trained };
}

async function pick(el: TrainPanel, name: string, text: string): Promise<void> {
  const input = inside<HTMLInputElement>(el, '#triplets');
  const files = new DataTransfer();
  files.items.add(new File([text], name, { type: 'text/tab-separated-values' }));
  input.files = files.files;
  input.dispatchEvent(new Event('change'));
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
  }
}

describe('<train-panel>', () => {
  it('explains a malformed triplet file with its name and line, and does not offer to train on it', async () => {
    cleanup();
    const el = await mount<TrainPanel>('train-panel', { client: fakeClient(null).client, summary: SUMMARY, k: 4 });
    await pick(el, 'bad.tsv', 'q1\tp1\tn1\nq2\tonly two fields\n');
    const error = inside(el, '#data-error').textContent ?? '';
    check(/bad\.tsv cannot be used/.test(error) && /line 2: 2 tab-separated fields, expected 3/.test(error), error);
    check(inside<HTMLButtonElement>(el, '#start').disabled, 'Start stays disabled');
    check(inside<HTMLInputElement>(el, '#train-k').value === '4', "k defaults to the page's k");
  });

  it('offers "Resume run from step N" for a saved checkpoint; Enter on it resumes; charts, time per step and provenance follow', async () => {
    cleanup();
    const fake = fakeClient({ step: 5, recipe: paperRecipe(10, 2), k: 2, seed: 1, store: 'IndexedDB', name: 'step-00000005' });
    const el = await mount<TrainPanel>('train-panel', { client: fake.client, summary: SUMMARY, k: 2 });
    await pick(el, 'tiny.tsv', 'query\tpositive\tnegative\nq1\tp1\tn1\nq2\tp2\tn2\n');
    check(/tiny\.tsv: 2 triplets/.test(inside(el, '#data').textContent ?? ''), inside(el, '#data').textContent ?? '');
    check(inside<HTMLInputElement>(el, '#batchSize').value === '2' && inside<HTMLInputElement>(el, '#steps').value === '10', "the fields show the saved run's settings");
    const resume = inside<HTMLButtonElement>(el, '#resume');
    check(resume.textContent?.trim() === 'Resume run from step 5', resume.textContent ?? '');
    resume.focus();
    await sendKeys({ press: 'Enter' });
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
    check(fake.trained.length === 1 && fake.trained[0].resume && fake.trained[0].k === 2, JSON.stringify(fake.trained));
    const loss = inside<LossChart>(el, '#train-loss');
    const active = inside<LossChart>(el, '#train-active');
    await loss.updateComplete;
    await active.updateComplete;
    check(allInside(loss, 'g.series').length === 2 && allInside(active, 'g.series').length === 2, 'two lines in each chart');
    check(/ranking loss L_rank: 1\.5 at step 6, 1.1 at step 10/.test(inside(loss, '#summary').textContent ?? ''), inside(loss, '#summary').textContent ?? '');
    check(/Done: step 10 of 10, 250 ms per step/.test(inside(el, '#train-status').textContent ?? ''), inside(el, '#train-status').textContent ?? '');
    const provenance = inside(el, '#train-provenance').textContent ?? '';
    check(/Figures from the fake backbone on fake\.tsv/.test(provenance) && /random weights/.test(provenance), provenance);
  });

  it('a new run sends the typed settings (keyboard-editable fields)', async () => {
    cleanup();
    const fake = fakeClient(null);
    const el = await mount<TrainPanel>('train-panel', { client: fake.client, summary: SUMMARY, k: 1 });
    await pick(el, 'tiny.tsv', 'q1\tp1\tn1\nq2\tp2\tn2\n');
    const steps = inside<HTMLInputElement>(el, '#steps');
    steps.focus();
    steps.select();
    await sendKeys({ type: '2' });
    await sendKeys({ press: 'Tab' });
    for (let i = 0; i < 3; i++) await sendKeys({ press: 'Backspace' });
    await sendKeys({ type: '2' });
    inside<HTMLButtonElement>(el, '#start').focus();
    await sendKeys({ press: 'Space' });
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    const sent = fake.trained[0];
    check(sent && !sent.resume && sent.steps === 2 && sent.batchSize === 2 && sent.queryLength === 32 && sent.k === 1, JSON.stringify(fake.trained));
  });
});

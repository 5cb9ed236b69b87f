// <train-panel>: a bad triplet file is explained with its file and line; a saved checkpoint offers "Resume run from
// step N" (keyboard); reports draw the loss and active-dimension lines with a time-per-step estimate and provenance.
import { sendKeys } from '@web/test-runner-commands';
import { parseTriplets } from '../../src/io/triplets/triplets.ts';
import type { StepReport } from '../../src/contract/training/training-report.ts';
import { paperRecipe } from '../../src/contract/training/recipe.ts';
import type { LossChart } from '../../src/ui/common/loss-chart.ts';
import '../../src/ui/training/train-panel.ts';
import type { TrainPanel } from '../../src/ui/training/train-panel.ts';
import type { TrainingClient } from '../../src/ui/training/training-client.ts';
import type { AlarmList } from '../../src/ui/training/alarm-list.ts';
import type { ProbeView as ProbeViewElement } from '../../src/ui/training/probe-view.ts';
import type { RecipeForm } from '../../src/ui/training/recipe-form.ts';
import type {
  Alarm,
  BatchCacheEntry,
  CheckpointInfo,
  ModelSummary,
  ProbeSnapshot,
  TrainEvent,
  TrainRequest,
  TrainResult,
} from '../../src/worker/api.ts';
import { allInside, check, cleanup, inside, mount } from './ui-fixture.ts';

const SUMMARY = { name: 'demo', label: 'synthetic demo backbone', synthetic: true } as ModelSummary;

function report(step: number): StepReport {
  return {
    step,
    rank: 2 - step / 10,
    flopsQueries: 10,
    flopsDocuments: 20,
    total: 3 - step / 10,
    gradNorm: 1.2,
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
    stepsPerSecond: 4,
    tokensPerSecond: 400,
    position: { epoch: 0, index: 0 },
  };
}

function probeSnapshot(step: number, weight: number): ProbeSnapshot {
  const terms = (names: string[]) => names.map((term, i) => ({ term, id: i, weight: weight / (i + 1), expansion: i > 0 }));
  return {
    step,
    probes: [
      {
        role: 'query',
        text: 'what causes the seasons',
        tokens: ['what'],
        activeDims: 100 - step,
        terms: terms(step ? ['seasons', 'tilt'] : ['seasons', 'np']),
      },
      {
        role: 'document',
        text: 'the tilt of the axis',
        tokens: ['tilt'],
        activeDims: 200 - step,
        terms: terms(['tilt', 'axis']),
      },
    ],
    scores: [[weight * 3]],
  };
}

const DENSE: Alarm = {
  rule: 'densification',
  severity: 'alarm',
  step: 3,
  title: 'Vectors are dense',
  evidence: 'At step 3, 30000 of 30522 active.',
  advice: 'divide the head by a larger k',
  ranges: 'at least 50% of the vocabulary',
};

/** A worker stand-in that parses files with the real reader and trains by replaying reports. */
const CACHED: BatchCacheEntry = {
  fingerprint: 'abc-4-2',
  data: { name: 'cached.tsv', triplets: 4, crc32: 7 },
  shape: { batchSize: 2, queryLength: 8, documentLength: 16 },
  seed: 1,
  tokenizer: '00ff00ff',
  batches: 8,
  bytes: 3 * 2 ** 20,
  updated: 1,
};

function fakeClient(checkpoint: CheckpointInfo | null, pauseAt: number | null = null, caches: BatchCacheEntry[] = []) {
  const trained: TrainRequest[] = [];
  const cleared: (string | undefined)[] = [];
  const hubReads: unknown[] = [];
  const client = {
    async readHubTriplets(ref: { repo: string; subset?: string; split?: string }) {
      hubReads.push(ref);
      return {
        name: `${ref.repo}/${ref.subset}:${ref.split}`,
        triplets: 5,
        negatives: 1,
        bytes: 1000,
        blankLines: 0,
        header: false,
        crc32: 3,
        format: 'parquet',
        memoryBytes: 0,
        streamed: false,
      };
    },
    async batchCaches() {
      return caches;
    },
    async clearBatchCache(fingerprint?: string) {
      cleared.push(fingerprint);
      caches = caches.filter((c) => fingerprint !== undefined && c.fingerprint !== fingerprint);
    },
    async useCachedBatches(fingerprint: string) {
      const entry = caches.find((c) => c.fingerprint === fingerprint)!;
      return {
        name: entry.data.name,
        triplets: entry.data.triplets,
        negatives: 1,
        bytes: entry.bytes,
        blankLines: 0,
        header: false,
        crc32: 7,
        format: 'tsv',
        memoryBytes: 0,
        streamed: false,
        cacheFingerprint: fingerprint,
      };
    },
    async readTriplets(file: File) {
      const parsed = parseTriplets(await file.text(), file.name);
      return {
        name: file.name,
        triplets: parsed.triplets.length,
        bytes: file.size,
        blankLines: parsed.blankLines,
        header: parsed.header,
        crc32: 1,
      };
    },
    async trainingCheckpoint() {
      return checkpoint;
    },
    async train(request: TrainRequest, onEvent: (event: TrainEvent) => void): Promise<TrainResult> {
      trained.push(request);
      const startStep = request.resume ? (checkpoint?.step ?? 0) : 0;
      onEvent({
        kind: 'start',
        startStep,
        resumedFrom: null,
        recipe: paperRecipe(10, request.batchSize),
        k: request.k,
        seed: 1,
        provenance: 'the fake backbone on fake.tsv',
      });
      onEvent({ kind: 'probe', snapshot: probeSnapshot(startStep, 1) });
      for (let t = startStep; t < 10; t++) {
        onEvent({ kind: 'report', report: report(t) });
        if (t + 1 === pauseAt && request.stopOnAlarm && !request.ignoreAlarms?.includes('densification')) {
          onEvent({ kind: 'probe', snapshot: probeSnapshot(t + 1, 2) });
          onEvent({ kind: 'alarm', alarm: DENSE, stops: true });
          checkpoint = {
            step: t + 1,
            recipe: paperRecipe(10, request.batchSize),
            k: request.k,
            seed: 1,
            store: 'IndexedDB',
            name: 'step-00000003',
          };
          return {
            startStep,
            step: t + 1,
            msPerStep: 250,
            paused: { reason: 'alarm "Vectors are dense" (densification) at step 3', checkpoint: 'step-00000003' },
          };
        }
      }
      return { startStep, step: 10, msPerStep: 250 };
    },
    async cancelJob() {},
  } as unknown as TrainingClient;
  return { client, trained, cleared, hubReads };
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
  it('lists the batches cached in this browser; "Train from these" stands in for the file, "Clear" removes them', async () => {
    cleanup();
    const fake = fakeClient(null, null, [CACHED]);
    const el = await mount<TrainPanel>('train-panel', { client: fake.client, summary: SUMMARY, k: 1 });
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
    const list = inside<HTMLElement>(el, 'batch-cache-list');
    await (list as unknown as { updateComplete: Promise<unknown> }).updateComplete;
    const row = list.shadowRoot!.querySelector('tr[data-fingerprint="abc-4-2"]')!;
    check(
      /cached\.tsv \(4 triplets\)/.test(row.textContent ?? '') && /3\.00 MiB/.test(row.textContent ?? ''),
      row.textContent ?? '',
    );
    check(inside<HTMLDetailsElement>(el, '#batch-caches').open, 'open while no file is picked');
    row.querySelector<HTMLButtonElement>('.use-cache')!.click();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
    check(
      /cached\.tsv: 4 triplets, from the batches cached in this browser/.test(inside<HTMLElement>(el, '#data').textContent ?? ''),
      inside<HTMLElement>(el, '#data').textContent ?? '',
    );
    check(!inside<HTMLButtonElement>(el, '#start').disabled, 'a run can start from the cached batches');
    row.querySelector<HTMLButtonElement>('.clear-cache')!.click();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
    check(fake.cleared[0] === 'abc-4-2' && /No triplets yet/.test(inside<HTMLElement>(el, '#data').textContent ?? ''), 'cleared');
  });

  it('reads a Hub dataset by id, subset and split for training', async () => {
    cleanup();
    const fake = fakeClient(null);
    const el = await mount<TrainPanel>('train-panel', {
      client: fake.client,
      summary: SUMMARY,
      k: 1,
      hubUrl: 'http://127.0.0.1:9/',
    });
    inside<HTMLInputElement>(el, '#hub-dataset').value = 'someone/triplets';
    inside<HTMLInputElement>(el, '#hub-subset').value = 'triplet';
    inside<HTMLButtonElement>(el, '#read-hub').click();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
    check(
      JSON.stringify(fake.hubReads) ===
        JSON.stringify([{ repo: 'someone/triplets', subset: 'triplet', split: 'train', hubUrl: 'http://127.0.0.1:9/' }]),
      JSON.stringify(fake.hubReads),
    );
    check(
      /someone\/triplets\/triplet:train: 5 triplets/.test(inside<HTMLElement>(el, '#data').textContent ?? ''),
      inside<HTMLElement>(el, '#data').textContent ?? '',
    );
    check(!inside<HTMLButtonElement>(el, '#start').disabled, 'a run can start on the dataset');
  });

  it('explains a malformed triplet file with its name and line, and does not offer to train on it', async () => {
    cleanup();
    const el = await mount<TrainPanel>('train-panel', { client: fakeClient(null).client, summary: SUMMARY, k: 4 });
    await pick(el, 'bad.tsv', 'q1\tp1\tn1\nq2\tonly two fields\n');
    const error = inside(el, '#data-error').textContent ?? '';
    check(/bad\.tsv cannot be used/.test(error) && /line 2: 2 tab-separated fields, expected 3/.test(error), error);
    check(inside<HTMLButtonElement>(el, '#start').disabled, 'Start stays disabled');
    check(inside<HTMLInputElement>(el, '#train-k').value === '4', "k defaults to the page's k");
  });

  it("gives the calibrator the form's recipe (optimizer, warm-up, clipping, dropout, micro-batches), a sweep also its lr and lambdas, or null for a bad field", async () => {
    cleanup();
    const el = await mount<TrainPanel>('train-panel', { client: fakeClient(null).client, summary: SUMMARY, k: 1 });
    const field = (id: string) => inside<HTMLInputElement>(inside<RecipeForm>(el, 'recipe-form'), `#${id}`);
    field('warmupRatio').value = '0.05';
    field('maxGradNorm').value = '0';
    field('gradAccum').value = '3';
    field('dropout').value = '0';
    const recipe = el.recipeSettings();
    const expected = {
      warmupRatio: 0.05,
      maxGradNorm: 0,
      gradAccum: 3,
      dropout: 0,
      optimizer: 'adamw',
      flopsOver: 'micro-batch',
    };
    check(
      !!recipe &&
        Object.keys(recipe).length === 6 &&
        Object.entries(expected).every(([key, value]) => recipe[key as keyof typeof recipe] === value),
      JSON.stringify(recipe),
    );
    field('peakLr').value = '2e-3';
    field('lambdaQueries').value = '0.02';
    field('lambdaDocuments').value = '0.005';
    const sweep = el.sweepSettings();
    check(
      !!sweep &&
        sweep.peakLr === 2e-3 &&
        sweep.lambdaQueries === 0.02 &&
        sweep.lambdaDocuments === 0.005 &&
        sweep.gradAccum === 3,
      JSON.stringify(sweep),
    );
    field('dropout').value = '';
    check(el.recipeSettings()?.dropout === undefined, "blank dropout: the backbone's");
    field('warmupRatio').value = '2';
    check(
      el.recipeSettings() === null && el.sweepSettings() === null && !field('warmupRatio').validity.valid,
      'a warm-up over 1 is refused and marked',
    );
  });

  it('offers "Resume run from step N" for a saved checkpoint; Enter on it resumes; charts, time per step and provenance follow', async () => {
    cleanup();
    const fake = fakeClient({ step: 5, recipe: paperRecipe(10, 2), k: 2, seed: 1, store: 'IndexedDB', name: 'step-00000005' });
    const el = await mount<TrainPanel>('train-panel', { client: fake.client, summary: SUMMARY, k: 2 });
    await pick(el, 'tiny.tsv', 'query\tpositive\tnegative\nq1\tp1\tn1\nq2\tp2\tn2\n');
    check(/tiny\.tsv: 2 triplets/.test(inside(el, '#data').textContent ?? ''), inside(el, '#data').textContent ?? '');
    check(
      inside<HTMLInputElement>(inside<RecipeForm>(el, 'recipe-form'), '#batchSize').value === '2' &&
        inside<HTMLInputElement>(inside<RecipeForm>(el, 'recipe-form'), '#steps').value === '10',
      "the fields show the saved run's settings",
    );
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
    check(
      /ranking loss L_rank: 1\.5 at step 6, 1.1 at step 10/.test(inside(loss, '#summary').textContent ?? ''),
      inside(loss, '#summary').textContent ?? '',
    );
    check(
      /Done: step 10 of 10, 250 ms per step/.test(inside(el, '#train-status').textContent ?? ''),
      inside(el, '#train-status').textContent ?? '',
    );
    const provenance = inside(el, '#train-provenance').textContent ?? '';
    check(
      /Figures from the fake backbone on fake\.tsv/.test(provenance) && /pretrained by splade-lab on WordNet/.test(provenance),
      provenance,
    );
  });

  it('a new run sends the typed settings (keyboard-editable fields)', async () => {
    cleanup();
    const fake = fakeClient(null);
    const el = await mount<TrainPanel>('train-panel', { client: fake.client, summary: SUMMARY, k: 1 });
    await pick(el, 'tiny.tsv', 'q1\tp1\tn1\nq2\tp2\tn2\n');
    const steps = inside<HTMLInputElement>(inside<RecipeForm>(el, 'recipe-form'), '#steps');
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
    check(
      sent && !sent.resume && sent.steps === 2 && sent.batchSize === 2 && sent.queryLength === 32 && sent.k === 1,
      JSON.stringify(fake.trained),
    );
    // the training semantics' defaults: one micro-batch, clipping at 1.0, the backbone's dropout, AdamW
    check(
      sent.gradAccum === 1 &&
        sent.maxGradNorm === 1 &&
        sent.dropout === undefined &&
        sent.optimizer === 'adamw' &&
        sent.warmupRatio === 0.1,
      JSON.stringify(sent),
    );
  });

  it("'Use the paper's values' fills the paper's recipe; dropout, accumulation, clipping and the optimiser are sent as set", async () => {
    cleanup();
    const fake = fakeClient(null);
    const el = await mount<TrainPanel>('train-panel', { client: fake.client, summary: SUMMARY, k: 1 });
    await pick(el, 'tiny.tsv', 'q1\tp1\tn1\nq2\tp2\tn2\n');
    inside<HTMLButtonElement>(inside<RecipeForm>(el, 'recipe-form'), '#paper-recipe').click();
    const value = (id: string) => inside<HTMLInputElement>(inside<RecipeForm>(el, 'recipe-form'), `#${id}`).value;
    check(
      value('batchSize') === '64' && value('gradAccum') === '8' && value('queryLength') === '256' && value('maxGradNorm') === '1',
      'paper fields',
    );
    for (const [id, typed] of [
      ['batchSize', '2'],
      ['gradAccum', '3'],
      ['maxGradNorm', '0'],
      ['dropout', '0.05'],
    ])
      inside<HTMLInputElement>(inside<RecipeForm>(el, 'recipe-form'), `#${id}`).value = typed;
    inside<HTMLSelectElement>(inside<RecipeForm>(el, 'recipe-form'), '#optimizer').value = 'sgd';
    inside<HTMLSelectElement>(inside<RecipeForm>(el, 'recipe-form'), '#flops-over').value = 'step';
    inside<HTMLButtonElement>(el, '#start').click();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    const sent = fake.trained[0];
    check(
      sent &&
        sent.gradAccum === 3 &&
        sent.maxGradNorm === 0 &&
        sent.dropout === 0.05 &&
        sent.optimizer === 'sgd' &&
        sent.flopsOver === 'step' &&
        sent.batchSize === 2,
      JSON.stringify(sent),
    );
    // a dropout of 1 is refused at the field
    inside<HTMLInputElement>(inside<RecipeForm>(el, 'recipe-form'), '#dropout').value = '1';
    inside<HTMLButtonElement>(el, '#start').click();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    check(
      fake.trained.length === 1 &&
        inside<HTMLInputElement>(inside<RecipeForm>(el, 'recipe-form'), '#dropout').validationMessage.includes('Dropout'),
      'refused',
    );
  });

  it('sends the chosen ranking loss and inference-free queries with a run and a sweep; the defaults send neither', async () => {
    cleanup();
    const fake = fakeClient(null);
    const el = await mount<TrainPanel>('train-panel', { client: fake.client, summary: SUMMARY, k: 1 });
    await pick(el, 'tiny.tsv', 'q1\tp1\tn1\nq2\tp2\tn2\n');
    const form = inside<RecipeForm>(el, 'recipe-form');
    const plain = el.recipeSettings();
    check(!!plain && !('loss' in plain) && !('inferenceFree' in plain), JSON.stringify(plain));
    inside<HTMLSelectElement>(form, '#loss').value = 'kl';
    inside<HTMLSelectElement>(form, '#queries').value = 'static';
    inside<HTMLButtonElement>(el, '#start').click();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    const sent = fake.trained[0];
    check(sent?.loss === 'kl' && sent?.inferenceFree === true, JSON.stringify(sent));
    const sweep = el.sweepSettings();
    check(sweep?.loss === 'kl' && sweep?.inferenceFree === true, JSON.stringify(sweep));
    // the table trained with the model
    inside<HTMLSelectElement>(form, '#queries').value = 'trained';
    const trained = el.sweepSettings();
    check(trained?.inferenceFree === true && trained?.trainQueryWeights === true, JSON.stringify(trained));
  });

  it('sends the probe texts and pause-on-alarm, shows probes and alarms live, pauses, and resumes without pausing on the same alarm', async () => {
    cleanup();
    const fake = fakeClient(null, 3);
    const el = await mount<TrainPanel>('train-panel', { client: fake.client, summary: SUMMARY, k: 1 });
    await pick(el, 'tiny.tsv', 'q1\tp1\tn1\nq2\tp2\tn2\n');
    inside<HTMLElement>(el, '#health-settings summary').click();
    const queries = inside<HTMLTextAreaElement>(el, '#probe-queries');
    check(/what causes the seasons on earth/.test(queries.value), `default probes: ${queries.value}`);
    queries.value = 'what causes the seasons\n\n  ';
    inside<HTMLTextAreaElement>(el, '#probe-documents').value = 'the tilt of the axis';
    inside<HTMLInputElement>(el, '#pause-on-alarm').click();
    inside<HTMLButtonElement>(el, '#start').click();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
    const sent = fake.trained[0];
    check(
      JSON.stringify(sent.probes) ===
        JSON.stringify([
          { role: 'query', text: 'what causes the seasons' },
          { role: 'document', text: 'the tilt of the axis' },
        ]) && sent.stopOnAlarm === true,
      JSON.stringify(sent),
    );
    const status = inside(el, '#train-status').textContent ?? '';
    check(/Paused at step 3 on alarm "Vectors are dense"/.test(status), status);
    const alarms = inside<AlarmList>(el, '#alarms');
    await alarms.updateComplete;
    const item = inside(alarms, 'li[data-rule="densification"]').textContent ?? '';
    check(
      /Alarm at step 3: Vectors are dense/.test(item) &&
        /divide the head by a larger k/.test(item) &&
        /50% of the vocabulary/.test(item),
      item,
    );
    const probes = inside<ProbeViewElement>(el, '#probes');
    await probes.updateComplete;
    check(
      /Probes at step 3, compared with step 0/.test(inside(probes, '#probe-step').textContent ?? ''),
      inside(probes, '#probe-step').textContent ?? '',
    );
    const change = inside(probes, '.card[data-role="query"] .change').textContent ?? '';
    check(/Active 100 → 97/.test(change) && /New in the top 2: tilt/.test(change), change);
    const scores = inside(probes, '#probe-scores tbody td').textContent ?? '';
    check(/^6\.0+ /.test(scores.trim()) && /\(3\.0+\)/.test(scores), scores);
    // resuming lets the raised alarm pass
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
    inside<HTMLButtonElement>(el, '#resume').click();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
    const resumed = fake.trained[1];
    check(resumed?.resume === true && JSON.stringify(resumed.ignoreAlarms) === '["densification"]', JSON.stringify(fake.trained));
    check(
      /Done: step 10 of 10/.test(inside(el, '#train-status').textContent ?? ''),
      inside(el, '#train-status').textContent ?? '',
    );
    check(allInside(alarms, 'li').length === 1, 'the alarm is listed once');
  });
});

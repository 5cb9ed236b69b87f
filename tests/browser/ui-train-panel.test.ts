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
import { allInside, cleanup, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

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
    expect(row.textContent ?? '', row.textContent ?? '').toMatch(/cached\.tsv \(4 triplets\)/);
    expect(row.textContent ?? '', row.textContent ?? '').toMatch(/3\.00 MiB/);
    expect(inside<HTMLDetailsElement>(el, '#batch-caches').open, 'open while no file is picked').toBeTruthy();
    row.querySelector<HTMLButtonElement>('.use-cache')!.click();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
    expect(inside<HTMLElement>(el, '#data').textContent ?? '', inside<HTMLElement>(el, '#data').textContent ?? '').toMatch(
      /cached\.tsv: 4 triplets, from the batches cached in this browser/,
    );
    expect(inside<HTMLButtonElement>(el, '#start').disabled, 'a run can start from the cached batches').toBeFalsy();
    row.querySelector<HTMLButtonElement>('.clear-cache')!.click();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
    expect(fake.cleared[0], 'cleared').toBe('abc-4-2');
    expect(inside<HTMLElement>(el, '#data').textContent ?? '', 'cleared').toMatch(/No triplets yet/);
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
    expect(JSON.stringify(fake.hubReads), JSON.stringify(fake.hubReads)).toBe(
      JSON.stringify([{ repo: 'someone/triplets', subset: 'triplet', split: 'train', hubUrl: 'http://127.0.0.1:9/' }]),
    );
    expect(inside<HTMLElement>(el, '#data').textContent ?? '', inside<HTMLElement>(el, '#data').textContent ?? '').toMatch(
      /someone\/triplets\/triplet:train: 5 triplets/,
    );
    expect(inside<HTMLButtonElement>(el, '#start').disabled, 'a run can start on the dataset').toBeFalsy();
  });

  it('explains a malformed triplet file with its name and line, and does not offer to train on it', async () => {
    cleanup();
    const el = await mount<TrainPanel>('train-panel', { client: fakeClient(null).client, summary: SUMMARY, k: 4 });
    await pick(el, 'bad.tsv', 'q1\tp1\tn1\nq2\tonly two fields\n');
    const error = inside(el, '#data-error').textContent ?? '';
    expect(error, error).toMatch(/bad\.tsv cannot be used/);
    expect(error, error).toMatch(/line 2: 2 tab-separated fields, expected 3/);
    expect(inside<HTMLButtonElement>(el, '#start').disabled, 'Start stays disabled').toBeTruthy();
    expect(inside<HTMLInputElement>(el, '#train-k').value, "k defaults to the page's k").toBe('4');
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
    expect(recipe, JSON.stringify(recipe)).toBeTruthy();
    expect(Object.keys(recipe!), JSON.stringify(recipe)).toHaveLength(6);
    expect(
      Object.entries(expected).every(([key, value]) => recipe![key as keyof typeof recipe] === value),
      JSON.stringify(recipe),
    ).toBe(true);
    field('peakLr').value = '2e-3';
    field('lambdaQueries').value = '0.02';
    field('lambdaDocuments').value = '0.005';
    const sweep = el.sweepSettings();
    expect(sweep, JSON.stringify(sweep)).toBeTruthy();
    expect(sweep!.peakLr, JSON.stringify(sweep)).toBe(2e-3);
    expect(sweep!.lambdaQueries, JSON.stringify(sweep)).toBe(0.02);
    expect(sweep!.lambdaDocuments, JSON.stringify(sweep)).toBe(0.005);
    expect(sweep!.gradAccum, JSON.stringify(sweep)).toBe(3);
    field('dropout').value = '';
    expect(el.recipeSettings()?.dropout, "blank dropout: the backbone's").toBeUndefined();
    field('warmupRatio').value = '2';
    expect(el.recipeSettings(), 'a warm-up over 1 is refused and marked').toBeNull();
    expect(el.sweepSettings(), 'a warm-up over 1 is refused and marked').toBeNull();
    expect(field('warmupRatio').validity.valid, 'a warm-up over 1 is refused and marked').toBeFalsy();
  });

  it('offers "Resume run from step N" for a saved checkpoint; Enter on it resumes; charts, time per step and provenance follow', async () => {
    cleanup();
    const fake = fakeClient({ step: 5, recipe: paperRecipe(10, 2), k: 2, seed: 1, store: 'IndexedDB', name: 'step-00000005' });
    const el = await mount<TrainPanel>('train-panel', { client: fake.client, summary: SUMMARY, k: 2 });
    await pick(el, 'tiny.tsv', 'query\tpositive\tnegative\nq1\tp1\tn1\nq2\tp2\tn2\n');
    expect(inside(el, '#data').textContent ?? '', inside(el, '#data').textContent ?? '').toMatch(/tiny\.tsv: 2 triplets/);
    expect(
      inside<HTMLInputElement>(inside<RecipeForm>(el, 'recipe-form'), '#batchSize').value,
      "the fields show the saved run's settings",
    ).toBe('2');
    expect(
      inside<HTMLInputElement>(inside<RecipeForm>(el, 'recipe-form'), '#steps').value,
      "the fields show the saved run's settings",
    ).toBe('10');
    const resume = inside<HTMLButtonElement>(el, '#resume');
    expect(resume.textContent?.trim(), resume.textContent ?? '').toBe('Resume run from step 5');
    resume.focus();
    await sendKeys({ press: 'Enter' });
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
    expect(fake.trained, JSON.stringify(fake.trained)).toHaveLength(1);
    expect(fake.trained[0].resume, JSON.stringify(fake.trained)).toBeTruthy();
    expect(fake.trained[0].k, JSON.stringify(fake.trained)).toBe(2);
    const loss = inside<LossChart>(el, '#train-loss');
    const active = inside<LossChart>(el, '#train-active');
    await loss.updateComplete;
    await active.updateComplete;
    expect(allInside(loss, 'g.series'), 'two lines in each chart').toHaveLength(2);
    expect(allInside(active, 'g.series'), 'two lines in each chart').toHaveLength(2);
    expect(inside(loss, '#summary').textContent ?? '', inside(loss, '#summary').textContent ?? '').toMatch(
      /ranking loss L_rank: 1\.5 at step 6, 1.1 at step 10/,
    );
    expect(inside(el, '#train-status').textContent ?? '', inside(el, '#train-status').textContent ?? '').toMatch(
      /Done: step 10 of 10, 250 ms per step/,
    );
    const provenance = inside(el, '#train-provenance').textContent ?? '';
    expect(provenance, provenance).toMatch(/Figures from the fake backbone on fake\.tsv/);
    expect(provenance, provenance).toMatch(/pretrained by splade-lab on WordNet/);
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
    expect(sent, JSON.stringify(fake.trained)).toBeTruthy();
    expect(sent.resume, JSON.stringify(fake.trained)).toBeFalsy();
    expect(sent.steps, JSON.stringify(fake.trained)).toBe(2);
    expect(sent.batchSize, JSON.stringify(fake.trained)).toBe(2);
    expect(sent.queryLength, JSON.stringify(fake.trained)).toBe(32);
    expect(sent.k, JSON.stringify(fake.trained)).toBe(1);
    // the training semantics' defaults: one micro-batch, clipping at 1.0, the backbone's dropout, AdamW
    expect(sent.gradAccum, JSON.stringify(sent)).toBe(1);
    expect(sent.maxGradNorm, JSON.stringify(sent)).toBe(1);
    expect(sent.dropout, JSON.stringify(sent)).toBeUndefined();
    expect(sent.optimizer, JSON.stringify(sent)).toBe('adamw');
    expect(sent.warmupRatio, JSON.stringify(sent)).toBe(0.1);
  });

  it("'Use the paper's values' fills the paper's recipe; dropout, accumulation, clipping and the optimiser are sent as set", async () => {
    cleanup();
    const fake = fakeClient(null);
    const el = await mount<TrainPanel>('train-panel', { client: fake.client, summary: SUMMARY, k: 1 });
    await pick(el, 'tiny.tsv', 'q1\tp1\tn1\nq2\tp2\tn2\n');
    inside<HTMLButtonElement>(inside<RecipeForm>(el, 'recipe-form'), '#paper-recipe').click();
    const value = (id: string) => inside<HTMLInputElement>(inside<RecipeForm>(el, 'recipe-form'), `#${id}`).value;
    expect(value('batchSize'), 'paper fields').toBe('64');
    expect(value('gradAccum'), 'paper fields').toBe('8');
    expect(value('queryLength'), 'paper fields').toBe('256');
    expect(value('maxGradNorm'), 'paper fields').toBe('1');
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
    expect(sent, JSON.stringify(sent)).toBeTruthy();
    expect(sent.gradAccum, JSON.stringify(sent)).toBe(3);
    expect(sent.maxGradNorm, JSON.stringify(sent)).toBe(0);
    expect(sent.dropout, JSON.stringify(sent)).toBe(0.05);
    expect(sent.optimizer, JSON.stringify(sent)).toBe('sgd');
    expect(sent.flopsOver, JSON.stringify(sent)).toBe('step');
    expect(sent.batchSize, JSON.stringify(sent)).toBe(2);
    // a dropout of 1 is refused at the field
    inside<HTMLInputElement>(inside<RecipeForm>(el, 'recipe-form'), '#dropout').value = '1';
    inside<HTMLButtonElement>(el, '#start').click();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    expect(fake.trained, 'refused').toHaveLength(1);
    expect(inside<HTMLInputElement>(inside<RecipeForm>(el, 'recipe-form'), '#dropout').validationMessage, 'refused').toContain(
      'Dropout',
    );
  });

  it('sends the chosen ranking loss and inference-free queries with a run and a sweep; the defaults send neither', async () => {
    cleanup();
    const fake = fakeClient(null);
    const el = await mount<TrainPanel>('train-panel', { client: fake.client, summary: SUMMARY, k: 1 });
    await pick(el, 'tiny.tsv', 'q1\tp1\tn1\nq2\tp2\tn2\n');
    const form = inside<RecipeForm>(el, 'recipe-form');
    const plain = el.recipeSettings();
    expect(plain, JSON.stringify(plain)).toBeTruthy();
    expect('loss' in plain!, JSON.stringify(plain)).toBeFalsy();
    expect('inferenceFree' in plain!, JSON.stringify(plain)).toBeFalsy();
    inside<HTMLSelectElement>(form, '#loss').value = 'kl';
    inside<HTMLSelectElement>(form, '#queries').value = 'static';
    inside<HTMLButtonElement>(el, '#start').click();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    const sent = fake.trained[0];
    expect(sent?.loss, JSON.stringify(sent)).toBe('kl');
    expect(sent?.inferenceFree, JSON.stringify(sent)).toBe(true);
    const sweep = el.sweepSettings();
    expect(sweep?.loss, JSON.stringify(sweep)).toBe('kl');
    expect(sweep?.inferenceFree, JSON.stringify(sweep)).toBe(true);
    // the table trained with the model
    inside<HTMLSelectElement>(form, '#queries').value = 'trained';
    const trained = el.sweepSettings();
    expect(trained?.inferenceFree, JSON.stringify(trained)).toBe(true);
    expect(trained?.trainQueryWeights, JSON.stringify(trained)).toBe(true);
  });

  it('sends the probe texts and pause-on-alarm, shows probes and alarms live, pauses, and resumes without pausing on the same alarm', async () => {
    cleanup();
    const fake = fakeClient(null, 3);
    const el = await mount<TrainPanel>('train-panel', { client: fake.client, summary: SUMMARY, k: 1 });
    await pick(el, 'tiny.tsv', 'q1\tp1\tn1\nq2\tp2\tn2\n');
    inside<HTMLElement>(el, '#health-settings summary').click();
    const queries = inside<HTMLTextAreaElement>(el, '#probe-queries');
    expect(queries.value, `default probes: ${queries.value}`).toMatch(/what causes the seasons on earth/);
    queries.value = 'what causes the seasons\n\n  ';
    inside<HTMLTextAreaElement>(el, '#probe-documents').value = 'the tilt of the axis';
    inside<HTMLInputElement>(el, '#pause-on-alarm').click();
    inside<HTMLButtonElement>(el, '#start').click();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
    const sent = fake.trained[0];
    expect(JSON.stringify(sent.probes), JSON.stringify(sent)).toBe(
      JSON.stringify([
        { role: 'query', text: 'what causes the seasons' },
        { role: 'document', text: 'the tilt of the axis' },
      ]),
    );
    expect(sent.stopOnAlarm, JSON.stringify(sent)).toBe(true);
    const status = inside(el, '#train-status').textContent ?? '';
    expect(status, status).toMatch(/Paused at step 3 on alarm "Vectors are dense"/);
    const alarms = inside<AlarmList>(el, '#alarms');
    await alarms.updateComplete;
    const item = inside(alarms, 'li[data-rule="densification"]').textContent ?? '';
    expect(item, item).toMatch(/Alarm at step 3: Vectors are dense/);
    expect(item, item).toMatch(/divide the head by a larger k/);
    expect(item, item).toMatch(/50% of the vocabulary/);
    const probes = inside<ProbeViewElement>(el, '#probes');
    await probes.updateComplete;
    expect(inside(probes, '#probe-step').textContent ?? '', inside(probes, '#probe-step').textContent ?? '').toMatch(
      /Probes at step 3, compared with step 0/,
    );
    const change = inside(probes, '.card[data-role="query"] .change').textContent ?? '';
    expect(change, change).toMatch(/Active 100 → 97/);
    expect(change, change).toMatch(/New in the top 2: tilt/);
    const scores = inside(probes, '#probe-scores tbody td').textContent ?? '';
    expect(scores.trim(), scores).toMatch(/^6\.0+ /);
    expect(scores, scores).toMatch(/\(3\.0+\)/);
    // resuming lets the raised alarm pass
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
    inside<HTMLButtonElement>(el, '#resume').click();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    await el.updateComplete;
    const resumed = fake.trained[1];
    expect(resumed?.resume, JSON.stringify(fake.trained)).toBe(true);
    expect(JSON.stringify(resumed.ignoreAlarms), JSON.stringify(fake.trained)).toBe('["densification"]');
    expect(inside(el, '#train-status').textContent ?? '', inside(el, '#train-status').textContent ?? '').toMatch(
      /Done: step 10 of 10/,
    );
    expect(allInside(alarms, 'li'), 'the alarm is listed once').toHaveLength(1);
  });
});

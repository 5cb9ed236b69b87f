// The data built into the page and the Hub offline: the Evaluate tab's chooser reads the lesson's generated task as a
// BEIR folder and the Training tab reads its triplets, the same files `lesson --write-task` writes, labelled synthetic;
// a Hub request that gets no answer (NanoBEIR, a Hub dataset, a model) says what works without the network, and offers
// the built-in data in one click, while a Hub that answers (a 404) gets no such advice.
import '../../src/ui/evaluation/dataset-chooser.ts';
import '../../src/ui/training/train-panel.ts';
import type { DatasetChooser, DatasetClient } from '../../src/ui/evaluation/dataset-chooser.ts';
import type { TrainPanel } from '../../src/ui/training/train-panel.ts';
import type { TrainingClient } from '../../src/ui/training/training-client.ts';
import { noticeFor } from '../../src/ui/common/failure-notice.ts';
import { lessonTaskFiles } from '../../src/contract/lesson/lesson-task-files.ts';
import { LESSON_DEFAULTS, lessonTaskFor } from '../../src/contract/lesson/lesson-settings.ts';
import { parseTriplets } from '../../src/io/triplets/triplets.ts';
import { PageFailure } from '../../src/worker/client.ts';
import type { DatasetSource, ModelSummary, TripletsSummary } from '../../src/worker/api.ts';
import { cleanup, inside, mount, settle } from './ui-fixture.ts';
import { expect } from './expect.ts';

/** What io/hub/http-body.ts says when fetch itself fails (offline): a HubError, as comlink hands it to the page. */
const OFFLINE = Object.assign(
  new Error(
    'could not download corpus/train-00000-of-00001.parquet of datasets/zeta-alpha-ai/NanoSciFact@main (https://huggingface.co): network failure (Failed to fetch)',
  ),
  { name: 'HubError' },
);
const NOT_FOUND = Object.assign(new Error('could not download x of org/name@main (https://huggingface.co): HTTP 404'), {
  name: 'HubError',
});

/** The files `splade-lab lesson --write-task` writes for the lesson's default seed, by path. */
const WRITTEN = new Map(lessonTaskFiles(lessonTaskFor(LESSON_DEFAULTS.seed)).map((f) => [f.path, f.text]));

function datasetClient(failNanoBeir: Error) {
  const opened: DatasetSource[] = [];
  const client: DatasetClient = {
    async openDataset(source) {
      opened.push(source);
      if (source.kind === 'nanobeir') throw failNanoBeir;
      return { name: `${source.name} #abc123`, queries: 32, documents: 192, judgments: 384, warnings: [] };
    },
  };
  return { client, opened };
}

describe('<dataset-chooser> built-in data', () => {
  it("reads the lesson's generated task as a BEIR folder, the CLI's own files, its name saying synthetic", async () => {
    cleanup();
    const fake = datasetClient(OFFLINE);
    const el = await mount<DatasetChooser>('dataset-chooser', { client: fake.client });
    expect(inside(el, '#read-builtin').textContent ?? '', 'the button says synthetic').toMatch(/synthetic/);
    inside<HTMLButtonElement>(el, '#read-builtin').click();
    await settle(el);
    const source = fake.opened[0];
    expect(source?.kind, `read as picked files: ${JSON.stringify(source)}`).toBe('files');
    expect(source.kind === 'files' ? source.name : '', `read as picked files: ${JSON.stringify(source)}`).toMatch(/synthetic/);
    const files = source.kind === 'files' ? source.files : [];
    const byName = new Map(await Promise.all(files.map(async (f) => [f.name, await f.text()] as const)));
    expect(byName.get('corpus.jsonl'), 'corpus.jsonl as --write-task writes it').toBe(WRITTEN.get('beir/corpus.jsonl'));
    expect(byName.get('queries.jsonl'), 'queries.jsonl as --write-task writes it').toBe(WRITTEN.get('beir/queries.jsonl'));
    expect(byName.get('test.tsv'), 'qrels/test.tsv as --write-task writes it').toBe(WRITTEN.get('beir/qrels/test.tsv'));
    const listed = inside(el, '#read-sets').textContent ?? '';
    expect(listed, `listed: ${listed}`).toMatch(/lesson task \(synthetic, built in\) #abc123: 32 queries/);
    expect(el.chosen, 'chosen for the next evaluation').toHaveLength(1);
  });

  it('a NanoBEIR set with no answer from the Hub says what works offline, and reads the built-in task in one click', async () => {
    cleanup();
    const fake = datasetClient(OFFLINE);
    const el = await mount<DatasetChooser>('dataset-chooser', { client: fake.client });
    inside<HTMLInputElement>(el, 'input[name="nanobeir"][value="SciFact"]').checked = true;
    inside<HTMLButtonElement>(el, '#read-nanobeir').click();
    await settle(el);
    expect(inside(el, '#dataset-error').textContent ?? '', 'the failure').toMatch(
      /NanoSciFact cannot be used: .*network failure/,
    );
    const advice = inside(el, '#dataset-offline').textContent ?? '';
    expect(advice, advice).toMatch(/may be offline/);
    expect(advice, advice).toMatch(/built in/);
    expect(advice, advice).toMatch(/BEIR folder/);
    inside<HTMLButtonElement>(el, '#offline-builtin').click();
    await settle(el);
    expect(fake.opened.at(-1)?.kind, 'read instead').toBe('files');
    expect(el.shadowRoot!.querySelector('#dataset-error'), 'read instead').toBeNull();
  });

  it('a Hub that answers (404) gets its message alone, no offline advice', async () => {
    cleanup();
    const el = await mount<DatasetChooser>('dataset-chooser', { client: datasetClient(NOT_FOUND).client });
    inside<HTMLInputElement>(el, 'input[name="nanobeir"][value="SciFact"]').checked = true;
    inside<HTMLButtonElement>(el, '#read-nanobeir').click();
    await settle(el);
    expect(inside(el, '#dataset-error').textContent ?? '', 'the 404 said').toMatch(/HTTP 404/);
    expect(el.shadowRoot!.querySelector('#dataset-offline'), 'no offline advice').toBeNull();
  });
});

function trainingClient() {
  const read: File[] = [];
  const client = {
    async readTriplets(file: File): Promise<TripletsSummary> {
      read.push(file);
      const parsed = parseTriplets(await file.text(), file.name);
      return {
        name: file.name,
        triplets: parsed.triplets.length,
        negatives: 1,
        bytes: file.size,
        blankLines: parsed.blankLines,
        header: parsed.header,
        crc32: 1,
        format: 'tsv',
        memoryBytes: file.size,
        streamed: false,
      };
    },
    async readHubTriplets() {
      throw OFFLINE;
    },
    async batchCaches() {
      return [];
    },
    async trainingCheckpoint() {
      return null;
    },
  } as unknown as TrainingClient;
  return { client, read };
}

const SUMMARY = { name: 'demo', label: 'demo backbone', synthetic: true } as ModelSummary;

describe('<train-panel> built-in data', () => {
  it("reads the lesson's generated triplets, the CLI's triplets.tsv, and labels them synthetic", async () => {
    cleanup();
    const fake = trainingClient();
    const el = await mount<TrainPanel>('train-panel', { client: fake.client, summary: SUMMARY });
    inside<HTMLButtonElement>(el, '#use-builtin').click();
    await settle(el);
    expect(await fake.read[0]?.text(), 'triplets.tsv as --write-task writes it').toBe(WRITTEN.get('triplets.tsv'));
    const data = inside(el, '#data').textContent ?? '';
    expect(data, data).toMatch(/lesson-task-synthetic\.tsv: 512 triplets .*synthetic: the lesson's generated task/);
  });

  it('a Hub dataset with no answer says what works offline, and reads the built-in triplets in one click', async () => {
    cleanup();
    const fake = trainingClient();
    const el = await mount<TrainPanel>('train-panel', { client: fake.client, summary: SUMMARY });
    inside<HTMLInputElement>(el, '#hub-dataset').value = 'org/triplets';
    inside<HTMLButtonElement>(el, '#read-hub').click();
    await settle(el);
    const advice = inside(el, '#data-offline').textContent ?? '';
    expect(advice, advice).toMatch(/may be offline/);
    expect(advice, advice).toMatch(/generated triplets/);
    inside<HTMLButtonElement>(el, '#offline-builtin').click();
    await settle(el);
    expect(fake.read, 'the built-in triplets read').toHaveLength(1);
    expect(inside(el, '#data').textContent ?? '', 'the built-in triplets read').toMatch(/synthetic/);
  });
});

describe('the model notice offline', () => {
  it('names the demo, local files and npm start when the Hub gives no answer; a 404 keeps the plain advice', () => {
    const offline = noticeFor(new PageFailure('download', OFFLINE.message), 'prajjwal1/bert-tiny');
    expect(offline.heading, offline.heading).toMatch(/Could not reach the Hub for prajjwal1\/bert-tiny/);
    expect(offline.message, offline.message).toMatch(/demo backbone is built into the page/);
    expect(offline.message, offline.message).toMatch(/npm start/);
    expect(
      offline.actions.some((a) => a.id === 'load-demo'),
      'the demo offered',
    ).toBe(true);
    const missing = noticeFor(new PageFailure('download', NOT_FOUND.message), 'org/name');
    expect(missing.heading, missing.message).toMatch(/Could not download org\/name/);
    expect(missing.message, missing.message).not.toMatch(/offline/);
  });
});

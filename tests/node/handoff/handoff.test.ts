// `splade-lab handoff`: the project's files, Python that compiles, splade_data.py reading the triplets as splade-lab
// does, expected_step1.json's first batch (the tokenizer's ids) and losses (the float64 reference), and refusals.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { parseTriplets, type Triplet } from '../../../src/io/triplets/triplets.ts';
import { P } from '../../../src/model/layout.ts';
import { loadModel, type LoadedModel } from '../../../src/model/load-model.ts';
import { encoderForward } from '../../../src/model/reference/encoder.ts';
import { toFloat64Params } from '../../../src/model/weights.ts';
import { spladeObjectiveReference } from '../../../src/train/splade/splade-objective-reference.ts';
import { epochOrder } from '../../../src/train/splade/batches.ts';
import { runCliWith } from '../../helpers/cli.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { TINY_VOCAB, TINY_WORDS } from '../../helpers/tiny-splade-model.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const K = 4;

const B = 4;

const TQ = 8;

const TD = 16;

/** Step-0 loss parts: splade-lab's fp32 GPU trainer against the float64 reference. */
const LOSS_RTOL = 1e-5;

const PYTHON = spawnSync('python3', ['--version']).status === 0;
if (!PYTHON) console.warn('handoff.test.ts: python3 is missing, so the Python checks are skipped');

const pythonIt = PYTHON ? it : it.skip;

let tsv: string;

let project: string;

let loaded: LoadedModel;

let triplets: Triplet[];

/** Texts of whole tiny-vocabulary words, some longer than the query or document length (truncation). */
function tripletsTsv(): string {
  const word = (i: number) => TINY_WORDS[i % TINY_WORDS.length];
  const text = (seed: number, n: number) => Array.from({ length: n }, (_, j) => word(seed * 7 + j * 3)).join(' ');
  const lines = ['query\tpositive\tnegative'];
  for (let i = 0; i < 12; i++) lines.push(`${text(i, 2 + (i % 9))}\t${text(i + 1, 5 + i)}\t${text(i + 2, 3 + ((i * 5) % 20))}`);
  lines.splice(5, 0, '   ');
  return lines.join('\r\n') + '\r\n';
}

const workspace = tinyCliWorkspace('splade-handoff-');
beforeAll(async () => {
  loaded = await loadModel(createFolderSource(workspace.model));
  tsv = join(workspace.root, 'tiny triplets.tsv');
  await writeFile(tsv, tripletsTsv());
  triplets = parseTriplets(await readFile(tsv), tsv).triplets;
  project = join(workspace.root, 'project');
  const made = await runCliWith('handoff', {
    model: workspace.model,
    k: String(K),
    triplets: tsv,
    out: project,
    gpus: '2',
    batch: String(B),
    'query-length': String(TQ),
    'doc-length': String(TD),
    steps: '30',
    seed: '7',
  });
  expect(made.stderr).not.toMatch(/handoff:/);
  expect(made.code).toBe(0);
  expect(made.stdout).toContain(`wrote 12 files to ${project}`);
});

const readJson = async (path: string) => JSON.parse(await readFile(join(project, path), 'utf8'));

/** [CLS] words [SEP], cut to T tokens (content cut, [SEP] kept): WordPiece of whole words of the tiny vocabulary. */
function wordIds(text: string, T: number): number[] {
  const ids = text.split(' ').map((w) => TINY_VOCAB.indexOf(w));
  expect(ids.includes(-1)).toBe(false);
  return [TINY_VOCAB.indexOf('[CLS]'), ...ids.slice(0, T - 2), TINY_VOCAB.indexOf('[SEP]')];
}

/** Rows right-padded to T with the pad id 0, and their masks. */
function padded(rows: number[][], T: number): { ids: Int32Array; mask: Uint8Array } {
  const ids = new Int32Array(rows.length * T);
  const mask = new Uint8Array(rows.length * T);
  rows.forEach((row, r) => row.forEach((id, t) => ((ids[r * T + t] = id), (mask[r * T + t] = 1))));
  return { ids, mask };
}

describe('splade-lab handoff', () => {
  it('writes the whole project: Python files, settings, expected step 1, requirements, launcher, README, data and the backbone', async () => {
    const list = async (dir: string, prefix = ''): Promise<string[]> =>
      (
        await Promise.all(
          (await readdir(dir, { withFileTypes: true })).map((e) =>
            e.isDirectory() ? list(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
          ),
        )
      ).flat();
    expect((await list(project)).sort()).toEqual(
      [
        'README.md',
        'backbone/config.json',
        'backbone/model.safetensors',
        'backbone/vocab.txt',
        'check_step1.py',
        'data/tiny_triplets.tsv',
        'expected_step1.json',
        'launch.sh',
        'requirements.txt',
        'splade_data.py',
        'splade_lab.json',
        'train.py',
      ].sort(),
    );
    expect(await readFile(join(project, 'data/tiny_triplets.tsv'), 'utf8')).toBe(tripletsTsv());
    const settings = await readJson('splade_lab.json');
    expect(settings).toMatchObject({
      k: K,
      gpus: 2,
      seed: 7,
      backbone: { hub_id: null, path: 'backbone', architecture: 'BertForMaskedLM', tied_head: true },
      recipe: {
        batch_per_gpu: B,
        query_length: TQ,
        document_length: TD,
        steps: 30,
        epochs: null,
        peak_lr: 1e-4,
        warmup_ratio: 0.1,
        lambda_q: 0.05,
        lambda_d: 0.003,
        tau: 1,
      },
      data: { file: 'tiny triplets.tsv', path: 'data/tiny_triplets.tsv', triplets: 12 },
    });
    expect(await readFile(join(project, 'launch.sh'), 'utf8')).toContain('torchrun --nproc_per_node 2 train.py');
    expect(await readFile(join(project, 'requirements.txt'), 'utf8')).toMatch(/^sentence-transformers==5\.\d+\.\d+$/m);
    const backbone = await readJson('backbone/config.json');
    expect(backbone).toMatchObject({ architectures: ['BertForMaskedLM'], tie_word_embeddings: true });
    const readme = await readFile(join(project, 'README.md'), 'utf8');
    for (const text of [
      'python check_step1.py',
      'torchrun --nproc_per_node 2 train.py',
      `**k = ${K}**`,
      'SpladeRegularizerWeightSchedulerCallback',
      'Where it differs',
    ]) {
      expect(readme).toContain(text);
    }
  });

  pythonIt('every .py file compiles with python3 -m py_compile (needs python3)', async () => {
    for (const file of ['train.py', 'check_step1.py', 'splade_data.py']) {
      const result = spawnSync('python3', ['-m', 'py_compile', join(project, file)], {
        encoding: 'utf8',
        env: { ...process.env, PYTHONPYCACHEPREFIX: join(workspace.root, 'pycache') },
      });
      expect(result.stderr, file).toBe('');
      expect(result.status, file).toBe(0);
    }
  });

  pythonIt('splade_data.py reads the copied triplets as splade-lab does and refuses another file (needs python3)', async () => {
    const script = [
      'import json, splade_data as s',
      'settings = s.load_settings()',
      'rows = s.read_triplets(s.HERE / settings["data"]["path"], settings["data"])',
      'print(json.dumps([list(r) for r in rows]))',
    ].join('\n');
    const run = (code: string) => spawnSync('python3', ['-B', '-c', code], { cwd: project, encoding: 'utf8' });
    const parsed = run(script);
    expect(parsed.stderr).toBe('');
    expect(JSON.parse(parsed.stdout)).toEqual(triplets.map((t) => [t.query, t.positive, t.negative]));
    const another = generatedTriplets();
    const read = run(
      `import json, splade_data as s\nprint(json.dumps([list(r) for r in s.read_triplets(${JSON.stringify(another)})]))`,
    );
    expect(JSON.parse(read.stdout)).toEqual(
      parseTriplets(await readFile(another), another).triplets.map((t) => [t.query, t.positive, t.negative]),
    );
    const other = run(`import splade_data as s\ns.read_triplets(${JSON.stringify(another)}, s.load_settings()["data"])`);
    expect(other.status).not.toBe(0);
    expect(other.stderr).toContain('splade-lab handed off 12 triplets');
    const bad = run('import splade_data as s\ns.parse_triplets(b"q\\tp\\tn\\nq2\\tp2\\n", "bad.tsv")');
    expect(bad.stderr).toContain('bad.tsv line 2: 2 tab-separated fields, expected 3');
  });

  it("expected_step1.json holds splade-lab's first batch: the seed's first triplets, as the tokenizer encodes them", async () => {
    const expected = await readJson('expected_step1.json');
    expect(expected).toMatchObject({ k: K, seed: 7, batchSize: B, queryLength: TQ, documentLength: TD });
    expect(expected.triplets).toEqual([...epochOrder(triplets.length, 7, 0).slice(0, B)]);
    const rows = (expected.triplets as number[]).map((i) => triplets[i]);
    const tokenizer = loaded.tokenizer;
    for (const [group, field, T] of [
      ['queries', 'query', TQ],
      ['positives', 'positive', TD],
      ['negatives', 'negative', TD],
    ] as const) {
      expect(expected.batch[group], group).toEqual(rows.map((t) => tokenizer.encode(t[field], { maxLength: T }).ids));
      expect(expected.batch[group], `${group}, by vocabulary lookup`).toEqual(rows.map((t) => wordIds(t[field], T)));
    }
    expect(expected.batch.positives.some((ids: number[]) => ids.length === TD)).toBe(true); // some were truncated
  });

  it(`expected_step1.json's loss parts equal the float64 reference (rel ${LOSS_RTOL}) with the head divided by k`, async () => {
    const expected = await readJson('expected_step1.json');
    const { config } = loaded;
    const params = toFloat64Params(loaded.params);
    params[P.wordEmbeddings] = params[P.wordEmbeddings].map((w) => w / K); // tied: the shared matrix
    const queries = padded(expected.batch.queries, TQ);
    const documents = padded([...expected.batch.positives, ...expected.batch.negatives], TD);
    const q = encoderForward(config, params, { ids: queries.ids, mask: queries.mask, B, T: TQ });
    const d = encoderForward(config, params, { ids: documents.ids, mask: documents.mask, B: 2 * B, T: TD });
    const reference = spladeObjectiveReference(
      {
        hiddenQueries: q.headHidden,
        maskQueries: queries.mask,
        hiddenDocuments: d.headHidden,
        maskDocuments: documents.mask,
        weight: params[P.wordEmbeddings],
        bias: params[P.decoderBias],
      },
      { B, Tq: TQ, Td: TD, d: config.hidden, V: config.vocabSize },
      1,
      0,
      0,
    );
    for (const part of ['rank', 'flopsQueries', 'flopsDocuments'] as const) {
      const want = reference[part];
      expect(want, part).toBeGreaterThan(0);
      expect(
        Math.abs(expected.loss[part] - want) / want,
        `${part}: splade-lab ${expected.loss[part]}, float64 ${want}`,
      ).toBeLessThan(LOSS_RTOL);
    }
  });

  const refusals: [string, string[], string][] = [
    ['k out of range', ['--k', '100'], 'k must be a number from 0.25 to 64, got 100'],
    ['no GPUs', ['--gpus', '0'], 'The number of GPUs must be a whole number from 1 to 4096, got 0'],
    ['a batch of 0', ['--batch', '0'], 'The batch size must be a whole number from 1 to 4096, got 0'],
    ['a batch larger than the data', ['--batch', '13'], 'The batch size 13 is larger than the 12 triplets of the data'],
    ['0 steps', ['--steps', '0'], 'Steps must be a whole number from 1 to 10000000, got 0'],
    ['steps and epochs', ['--steps', '3', '--epochs', '1'], 'give --steps or --epochs, not both'],
    ['a negative learning rate', ['--lr=-1'], 'The learning rate must be a number above 0, got -1'],
    ['a negative lambda', ['--lambda-q=-0.1'], 'lambda_q must be a number of at least 0, got -0.1'],
    ['a 33-bit seed', ['--seed', '4294967296'], 'The seed must be a whole number from 0 to 4294967295, got 4294967296'],
    ['a query length of 1', ['--query-length', '1'], 'The query length must be a whole number from 2 to 8192, got 1'],
    ['a length past the position table', ['--doc-length', '100'], 'The document length must be at most 64 tokens for this model'],
  ];
  it.each(refusals)('refuses %s through the application checks, writing nothing', async (_, extra, message) => {
    const out = join(workspace.root, `refused-${extra.join('')}`);
    const result = await runCliWith(
      'handoff',
      {
        model: workspace.model,
        k: String(K),
        triplets: tsv,
        out,
        batch: String(B),
        'query-length': String(TQ),
        'doc-length': String(TD),
      },
      ...extra,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses an --out folder that already holds files, and a missing --k', async () => {
    const out = join(workspace.root, 'busy');
    await mkdir(out);
    await writeFile(join(out, 'train.py'), 'print("mine")\n');
    const busy = await runCliWith('handoff', { model: workspace.model, k: '2', triplets: tsv, out, batch: String(B) });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain(`--out ${out} already holds files (train.py); give a new or empty folder`);
    expect(await readFile(join(out, 'train.py'), 'utf8')).toBe('print("mine")\n');
    const noK = await runCliWith('handoff', { model: workspace.model, triplets: tsv, out: join(workspace.root, 'nok') });
    expect(noK.code).toBe(1);
    expect(noK.stderr).toContain('--k <K> is required');
  });
});

// The CLI as a careless or hostile user drives it (issue 11): a diverging run stops non-zero naming NaN/Inf and
// writes no non-finite weight; a model with a NaN weight is refused by eval, encode and inspect with the tensor's
// name; an unwritable --out fails at once; a busy run folder refuses a second writer; bad numbers are refused;
// `tokenize | head -1` ends quietly.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readSafetensors, writeSafetensors } from '../../../src/io/formats/safetensors.ts';
import { readCheckpoint } from '../../../src/train/training-checkpoint.ts';
import { createFolderCheckpointStore } from '../../../src/train/checkpoint-store-node.ts';
import { firstNonFinite } from '../../../src/util/finite.ts';
import { runCli, runCliWith } from '../../helpers/cli.ts';
import { fixturePath } from '../../helpers/fixtures.ts';
import { generatedBeir, generatedTriplets } from '../../helpers/generated-data.ts';
import { writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const TRIPLETS = generatedTriplets();

const SMALL = ['--batch', '2', '--query-length', '8', '--doc-length', '16'];

/** `splade-lab train` or `sweep` of the tiny model on the generated triplets into `out`, at SMALL's sizes, then `extra`. */
const runOnTiny = (command: 'train' | 'sweep', out: string, ...extra: string[]) =>
  runCliWith(command, { model: workspace.model, triplets: TRIPLETS, out }, ...SMALL, ...extra);

let nanModel: string;
const workspace = tinyCliWorkspace('splade-cli-reliability-');
beforeAll(async () => {
  nanModel = join(workspace.root, 'nan');
  await writeTinySpladeModel(nanModel);
  const { tensors } = readSafetensors(new Uint8Array(await readFile(join(nanModel, 'model.safetensors'))), 'tiny');
  const [, tensor] = [...tensors].find(([name]) => name.endsWith('attention.output.dense.weight'))!;
  tensor.data[5] = Infinity;
  await writeFile(join(nanModel, 'model.safetensors'), writeSafetensors(tensors));
});

describe('a diverging run', () => {
  it('stops with a non-zero exit naming the step and NaN/Inf, keeps only finite checkpoints and saves no model', async () => {
    const out = join(workspace.root, 'diverged');
    const { code, stderr } = await runOnTiny(
      'train',
      out,
      '--lr',
      '1e9',
      '--steps',
      '8',
      '--checkpoint-every',
      '2',
      '--report-every',
      '1',
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/training diverged (at|by) step \d+: .*(NaN|Infinity)/);
    expect(existsSync(join(out, 'model'))).toBe(false);
    const store = createFolderCheckpointStore(join(out, 'checkpoint'));
    for (const name of await store.list()) {
      const state = await readCheckpoint(store, name);
      for (const [tensor, p] of state.params) expect(firstNonFinite(p.data), `${name} ${tensor}`).toBe(-1);
    }
  });
});

describe('models with non-finite weights', () => {
  const named = /tensor bert\.encoder\.layer\.\d\.attention\.output\.dense\.weight \[16x16\] holds Infinity/;
  it.each([
    ['inspect', () => ['inspect', nanModel]],
    ['eval', () => ['eval', '--model', nanModel, '--beir', generatedBeir()]],
    [
      'encode',
      () => [
        'encode',
        '--model',
        nanModel,
        '--in',
        join(generatedBeir(), 'queries.jsonl'),
        '--out',
        join(workspace.root, 'never.jsonl'),
      ],
    ],
  ])('%s refuses them, naming the tensor', async (_, args) => {
    const { code, stderr } = await runCli(...args());
    expect(code).toBe(1);
    expect(stderr).toMatch(named);
  });
});

describe('checkpoint tensors the model does not use', () => {
  it('are named by inspect and eval, as transformers warns of them', async () => {
    const extra = join(workspace.root, 'extra');
    await writeTinySpladeModel(extra);
    const { tensors } = readSafetensors(new Uint8Array(await readFile(join(extra, 'model.safetensors'))), 'tiny');
    tensors.set('classifier.weight', { shape: [2, 16], data: new Float32Array(32) });
    await writeFile(join(extra, 'model.safetensors'), writeSafetensors(tensors));
    const inspect = await runCli('inspect', extra);
    expect(inspect.code).toBe(0);
    expect(inspect.stdout).toMatch(
      /note: Some weights of the checkpoint in .* were not used by BertForMaskedLM: classifier\.weight/,
    );
    const beir = join(workspace.root, 'beir');
    await mkdir(join(beir, 'qrels'), { recursive: true });
    await writeFile(join(beir, 'corpus.jsonl'), '{"_id": "d1", "text": "the cat sat"}\n{"_id": "d2", "text": "the sea"}\n');
    await writeFile(join(beir, 'queries.jsonl'), '{"_id": "q1", "text": "cat"}\n');
    await writeFile(join(beir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\n');
    const evaluation = await runCli(
      'eval',
      '--model',
      extra,
      '--beir',
      beir,
      '--json',
      '--query-length',
      '8',
      '--doc-length',
      '8',
    );
    expect(evaluation.stderr).toMatch(/note: Some weights .* classifier\.weight/);
  });
});

describe('run folders', () => {
  it('an unwritable --out fails at once, naming the path and the reason, before any model is read', async () => {
    const started = performance.now();
    const { code, stderr } = await runOnTiny('train', '/proc/splade-lab-out', '--steps', '1');
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot create the run folder \/proc\/splade-lab-out: /);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('a second writer into a busy run is refused with a message about the lock', async () => {
    const out = join(workspace.root, 'busy');
    await mkdir(out);
    await writeFile(join(out, '.splade-lab.lock'), JSON.stringify({ pid: process.pid, host: hostname(), since: 'now' }));
    const { code, stderr } = await runOnTiny('train', out, '--steps', '1');
    expect(code).toBe(1);
    expect(stderr).toContain(`is being written by process ${process.pid} on ${hostname()}`);
    expect(stderr).toContain('one run folder takes one writer');
    expect(await readdir(out)).toEqual(['.splade-lab.lock']);
  });
});

describe('numbers', () => {
  it.each([
    [['--lr=-1e-4'], 'The learning rate must be a number above 0, got -0.0001'],
    [['--lambda-q=-1'], 'lambda_q must be a number of at least 0, got -1'],
    [['--seed', '4294967296'], 'The seed must be a whole number from 0 to 4294967295, got 4294967296'],
    [['--k', '0'], 'k must be a number from 0.25 to 64, got 0'],
  ])('train refuses %j', async (extra, message) => {
    const { code, stderr } = await runOnTiny('train', join(workspace.root, 'numbers'), '--steps', '1', ...extra);
    expect(code).toBe(1);
    expect(stderr).toContain(message);
  });

  it.each([
    ['--max-docs=-1', /maxDocsPerQuery \(trec_eval -M\) must be a whole number >= 0, got -1/],
    ['--relevance-level=-1', /relevanceLevel .* got -1/],
  ])('metrics refuses %s', async (option, message) => {
    const { code, stderr } = await runCli(
      'metrics',
      '--qrels',
      fixturePath('trec_eval/qrels.test'),
      '--run',
      fixturePath('trec_eval/results.test'),
      option,
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(message);
  });
});

describe('pipes', () => {
  it('tokenize | head -1 ends quietly (a closed pipe is no error)', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i} of the cat and the dog`).join('\n');
    const result = spawnSync('bash', ['-c', `set -o pipefail; node bin/splade-lab.mjs tokenize "${workspace.model}" | head -1`], {
      input: lines,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).ids[0]).toBe(2); // [CLS]
  });
});

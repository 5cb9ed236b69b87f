// The hand-off of today's recipes: a distillation project (the rows' teacher labels in its data, its first batch's
// labels and MarginMSE or KL step-0 loss in expected_step1.json, equal to the float64 reference) and an inference-free
// one (idf.json as the run's table, the trained table's query L1 in place of FLOPS); splade_data.py reads the labels as
// splade-lab does; refusals for a distillation without labels and a trained table without --inference-free.
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { parseTriplets, rowNegatives } from '../../../src/io/triplets/triplets.ts';
import { loadModel, type LoadedModel } from '../../../src/model/load-model.ts';
import { documentFrequencyOf, idfWeights } from '../../../src/retrieval/idf-table.ts';
import { spladeTrainingReference } from '../../../src/train/splade/splade-training-reference.ts';
import type { TripletBatch } from '../../../src/train/splade/trainer.ts';
import { runCliWith } from '../../helpers/cli.ts';
import { startingPoint } from '../../helpers/one-step-run.ts';
import { TINY_WORDS } from '../../helpers/tiny-splade-model.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const K = 2;
const B = 4;
const TQ = 8;
const TD = 12;
const LOSS_RTOL = 1e-4;
const PYTHON = spawnSync('python3', ['--version']).status === 0;
const pythonIt = PYTHON ? it : it.skip;

let loaded: LoadedModel;

/** 10 rows of tiny-vocabulary words with a header naming `labels` (the teacher's [pos, neg] scores or one margin). */
function labelledTsv(labels: 'scores' | 'margin'): string {
  const word = (i: number) => TINY_WORDS[i % TINY_WORDS.length];
  const text = (seed: number, n: number) => Array.from({ length: n }, (_, j) => word(seed * 5 + j * 3)).join(' ');
  const header = labels === 'scores' ? 'query\tpositive\tnegative\tlabel_1\tlabel_2' : 'anchor\tpositive\tnegative\tlabel';
  const rows = Array.from({ length: 10 }, (_, i) => {
    const scores = labels === 'scores' ? `${(8 + i * 0.7).toFixed(2)}\t${(2 - i * 0.3).toFixed(2)}` : (3.5 - i * 0.45).toFixed(2);
    return `${text(i, 2 + (i % 4))}\t${text(i + 1, 4 + i)}\t${text(i + 2, 3 + (i % 6))}\t${scores}`;
  });
  return [header, ...rows].join('\n') + '\n';
}

async function handoff(out: string, tsv: string, ...extra: string[]) {
  return runCliWith(
    'handoff',
    {
      model: workspace.model,
      k: String(K),
      triplets: tsv,
      out,
      batch: String(B),
      'query-length': String(TQ),
      'doc-length': String(TD),
      steps: '5',
      seed: '3',
    },
    ...extra,
  );
}

/** The first batch of expected_step1.json as a trainer batch (right-padded ids and masks, its teacher labels). */
function batchOf(expected: {
  batch: { queries: number[][]; positives: number[][]; negatives: number[][] };
  teacher?: number[][];
}): TripletBatch {
  const pad = (rows: number[][], T: number) => {
    const ids = new Int32Array(rows.length * T);
    const mask = new Uint8Array(rows.length * T);
    rows.forEach((row, r) => row.forEach((id, t) => ((ids[r * T + t] = id), (mask[r * T + t] = 1))));
    return { ids, mask };
  };
  const queries = pad(expected.batch.queries, TQ);
  const documents = pad([...expected.batch.positives, ...expected.batch.negatives], TD);
  return {
    queryIds: queries.ids,
    queryMask: queries.mask,
    documentIds: documents.ids,
    documentMask: documents.mask,
    ...(expected.teacher ? { teacher: Float32Array.from(expected.teacher.flat()) } : {}),
  };
}

const within = (got: number, want: number, what: string) =>
  expect(Math.abs(got - want), `${what}: splade-lab ${got}, float64 ${want}`).toBeLessThanOrEqual(
    LOSS_RTOL * Math.max(1e-3, Math.abs(want)),
  );

const workspace = tinyCliWorkspace('splade-handoff-recipes-');
beforeAll(async () => {
  loaded = await loadModel(createFolderSource(workspace.model));
  await writeFile(join(workspace.root, 'scores.tsv'), labelledTsv('scores'));
  await writeFile(join(workspace.root, 'margins.tsv'), labelledTsv('margin'));
  await writeFile(
    join(workspace.root, 'plain.tsv'),
    labelledTsv('margin')
      .replace(/\t[-\d.]+\n/g, '\n')
      .replace('\tlabel\n', '\n'),
  );
});

describe('the hand-off of distillation and inference-free recipes', () => {
  it.each([
    ['kl', 'scores.tsv', ['--loss', 'kl']], // T = 2 is --loss kl's default, sentence-transformers' SparseDistillKLDivLoss's
    ['marginmse', 'margins.tsv', ['--loss', 'marginmse']],
  ] as const)(
    '--loss %s: the batch carries its teacher labels and the step-0 loss is the float64 reference',
    async (loss, file, extra) => {
      const out = join(workspace.root, `project-${loss}`);
      const made = await handoff(out, join(workspace.root, file), ...extra);
      expect(made.stderr).not.toMatch(/handoff:/);
      expect(made.code).toBe(0);
      const settings = JSON.parse(await readFile(join(out, 'splade_lab.json'), 'utf8'));
      expect(settings.recipe).toMatchObject({ loss, tau: loss === 'kl' ? 2 : 1, inference_free: null });
      const expected = JSON.parse(await readFile(join(out, 'expected_step1.json'), 'utf8'));
      const { triplets } = parseTriplets(await readFile(join(workspace.root, file)), file);
      // in float32, as the trainer took them
      expect(expected.teacher).toEqual((expected.triplets as number[]).map((i) => triplets[i].label!.map(Math.fround)));
      const reference = spladeTrainingReference(loaded.config, startingPoint(loaded, K), batchOf(expected), {
        queryLength: TQ,
        documentLength: TD,
        tau: loss === 'kl' ? 2 : 1,
        loss,
        lambdaQueries: 0,
        lambdaDocuments: 0,
      });
      within(expected.loss.rank, reference.rank, `${loss} rank`);
      within(expected.loss.flopsQueries, reference.flopsQueries, 'FLOPS of the queries');
      within(expected.loss.flopsDocuments, reference.flopsDocuments, 'FLOPS of the documents');
    },
  );

  pythonIt("splade_data.py reads the rows' labels as splade-lab does (needs python3)", async () => {
    for (const file of ['scores.tsv', 'margins.tsv', 'plain.tsv']) {
      const path = join(workspace.root, file);
      const { triplets } = parseTriplets(await readFile(path), file);
      const script =
        'import json, sys; from splade_data import read_rows; t, l = read_rows(sys.argv[1]); print(json.dumps([t, l]))';
      const result = spawnSync('python3', ['-c', script, path], {
        cwd: join(workspace.root, 'project-kl'),
        encoding: 'utf8',
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
      });
      expect(result.status, result.stderr).toBe(0);
      const [rows, labels] = JSON.parse(result.stdout);
      expect(rows).toEqual(triplets.map((t) => [t.query, t.positive, ...rowNegatives(t)]));
      expect(labels).toEqual(file === 'plain.tsv' ? null : triplets.map((t) => t.label));
    }
  });

  it('--inference-free --train-query-weights --query-l1: idf.json is the run table, the step-0 query term is the L1 of its vectors', async () => {
    const out = join(workspace.root, 'project-inference-free');
    const L1 = 0.01;
    const made = await handoff(
      out,
      join(workspace.root, 'plain.tsv'),
      '--inference-free',
      '--train-query-weights',
      '--query-l1',
      String(L1),
    );
    expect(made.stderr).not.toMatch(/handoff:/);
    expect(made.code).toBe(0);
    const settings = JSON.parse(await readFile(join(out, 'splade_lab.json'), 'utf8'));
    // the table learns at its own lr (--query-table-lr, default 1e-3), which train.py gives it by learning_rate_mapping
    expect(settings.recipe.inference_free).toMatchObject({ idf: 'idf.json', trained: true, query_l1: L1, query_table_lr: 1e-3 });
    expect(await readFile(join(out, 'train.py'), 'utf8')).toContain('learning_rate_mapping=table_learning_rate(model, recipe)');
    // the table: IDF of the data's documents (each text once), special tokens left out of idf.json
    const { triplets } = parseTriplets(await readFile(join(workspace.root, 'plain.tsv')), 'plain.tsv');
    const texts = [...new Set(triplets.flatMap((t) => [t.positive, ...rowNegatives(t)]))];
    const { df, documents } = documentFrequencyOf(
      texts.map((text) => loaded.tokenizer.encode(text, { addSpecialTokens: false }).ids),
      loaded.config.vocabSize,
    );
    const weights = Float32Array.from(idfWeights(df, documents));
    const special = Object.values(loaded.tokenizer.specialIds).filter((id): id is number => id !== null);
    for (const id of special) weights[id] = 0;
    const idf = JSON.parse(await readFile(join(out, 'idf.json'), 'utf8')) as Record<string, number>;
    for (const id of special) expect(idf[loaded.tokenizer.idToToken(id)!]).toBeUndefined();
    for (const [token, weight] of Object.entries(idf)) expect(weight).toBe(weights[loaded.tokenizer.tokenToId(token)!]);
    expect(Object.keys(idf).length).toBe(loaded.config.vocabSize - new Set(special).size);
    const expected = JSON.parse(await readFile(join(out, 'expected_step1.json'), 'utf8'));
    const reference = spladeTrainingReference(loaded.config, startingPoint(loaded, K), batchOf(expected), {
      queryLength: TQ,
      documentLength: TD,
      tau: 1,
      lambdaQueries: 0,
      lambdaDocuments: 0,
      queryWeights: weights,
      trainedQueryTable: { frozenIds: special },
    });
    expect(reference.flopsQueries).toBeGreaterThan(0);
    within(expected.loss.rank, reference.rank, 'rank');
    within(expected.loss.flopsQueries, reference.flopsQueries, 'L1 of the query vectors');
    within(expected.loss.flopsDocuments, reference.flopsDocuments, 'FLOPS of the documents');
  });

  it.each([
    ['a distillation without labels', 'plain.tsv', ['--loss', 'marginmse'], /label/],
    ['a trained table without --inference-free', 'plain.tsv', ['--train-query-weights'], /inference-free run/],
  ])('refuses %s', async (_, file, extra, message) => {
    const out = join(workspace.root, `refused-${extra.join('')}`);
    const result = await handoff(out, join(workspace.root, file), ...extra);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
  });
});

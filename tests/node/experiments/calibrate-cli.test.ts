// `splade-lab calibrate` and `splade-lab lambdas` end to end on the tiny model: trials in their run folders, each
// evaluated on a small BEIR folder, the closest trial suggested, the suggested lambdas trained again at another batch
// size, calibration.json written, the recipe options (dropout, warm-up) used by every trial; the converter's text and JSON, and its refusal of a distillation loss.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CalibrationTrial } from '../../../src/contract/experiments/calibration.ts';
import { closestTrial } from '../../../src/contract/experiments/lambda-search.ts';
import { runCli, runCliWith } from '../../helpers/cli.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { TINY_BATCH_SHAPE } from '../../helpers/tiny-training-flags.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const TRIPLETS = generatedTriplets();

let beir: string;
const workspace = tinyCliWorkspace('splade-calibrate-cli-');
beforeAll(async () => {
  beir = join(workspace.root, 'beir');
  await mkdir(join(beir, 'qrels'), { recursive: true });
  const docs = [
    { _id: 'd1', title: '', text: 'the blood of the heart' },
    { _id: 'd2', title: '', text: 'the sea and the river' },
  ];
  await writeFile(join(beir, 'corpus.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
  await writeFile(join(beir, 'queries.jsonl'), JSON.stringify({ _id: 'q1', text: 'heart blood' }) + '\n');
  await writeFile(join(beir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\n');
});

describe('splade-lab calibrate', () => {
  it('runs trials from the same start, evaluates each, suggests the closest, and measures another batch size', async () => {
    const out = join(workspace.root, 'cal');
    const { code, stdout, stderr } = await runCliWith(
      'calibrate',
      { model: workspace.model, triplets: TRIPLETS, out },
      '--target-q',
      '12',
      '--target-d',
      '20',
      '--tolerance',
      '0.3',
      '--trials',
      '3',
      '--steps',
      '4',
      ...TINY_BATCH_SHAPE,
      '--lr',
      '1e-2',
      '--batch-sizes',
      '2',
      '--beir',
      beir,
      '--json',
      '--dropout',
      '0',
      '--warmup-ratio',
      '0.25',
    );
    expect(stderr).toBe('');
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const done = events.at(-1);
    expect(done.event).toBe('done');
    expect(code).toBe(done.suggested.within ? 0 : 4);
    const result = JSON.parse(await readFile(join(out, 'calibration.json'), 'utf8'));
    const search = (result.trials as CalibrationTrial[]).filter((t) => t.purpose === 'search');
    expect(search.length).toBeGreaterThanOrEqual(1);
    expect(search.length).toBeLessThanOrEqual(3);
    // the first trial uses the paper's lambdas; later ones differ
    expect(search[0]).toMatchObject({ lambdaQueries: 5e-2, lambdaDocuments: 3e-3, batchSize: 4 });
    for (const t of result.trials) {
      expect(t.runId).toBe(join(out, `trial-${t.index + 1}`));
      expect(t.evaluations).toHaveLength(1);
      expect(t.evaluations[0].splade.metrics.ndcg_cut_10).toBeGreaterThanOrEqual(0);
      expect(t.measuredReports).toBeGreaterThanOrEqual(1);
      const record = JSON.parse(await readFile(join(t.runId, 'run.json'), 'utf8'));
      expect(record.status).toBe('finished');
      expect(record.recipe.lambdaQueries).toBe(t.lambdaQueries);
      // every trial trains with the recipe options given, as `train` would
      expect(record.recipe.schedule.warmupRatio).toBe(0.25);
      expect(record.recipe.dropout ?? 0).toBe(0);
    }
    const best = closestTrial(search, result.target);
    expect(result.suggested).toMatchObject({
      lambdaQueries: best.lambdaQueries,
      lambdaDocuments: best.lambdaDocuments,
      trial: best.index,
    });
    expect(result.batchDependence.map((t: { batchSize: number }) => t.batchSize)).toEqual([2, 4]);
    const atTwo = result.batchDependence[0];
    expect(atTwo).toMatchObject({ purpose: 'batch', lambdaQueries: best.lambdaQueries, lambdaDocuments: best.lambdaDocuments });
  });

  it('refuses a target out of range before any training', async () => {
    const { code, stderr } = await runCliWith('calibrate', {
      model: workspace.model,
      triplets: TRIPLETS,
      out: join(workspace.root, 'bad'),
      'target-q': '0',
      'target-d': '20',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('The query target must be');
  });
});

describe('splade-lab lambdas', () => {
  it('converts, explains, and refuses a distillation loss with exit 4', async () => {
    const plain = await runCliWith(
      'lambdas',
      { from: 'sentence-transformers', 'lambda-q': '5e-5', 'lambda-d': '3e-5', 'from-batch': '8', 'to-batch': '8' },
      '--json',
    );
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout)).toMatchObject({ lambdaQueries: 5e-5, lambdaDocuments: 3e-5, convertible: true });
    const explain = await runCli('lambdas', '--explain');
    for (const name of ['splade-lab', 'sentence-transformers', 'naver-splade', 'tevatron'])
      expect(explain.stdout).toContain(`${name}: `);
    const distilled = await runCliWith('lambdas', {
      from: 'naver-splade',
      'from-loss': 'distillation',
      'lambda-q': '0.5',
      'lambda-d': '0.4',
      'from-batch': '128',
    });
    expect(distilled.code).toBe(4);
    expect(distilled.stdout).toContain('no formula carries these values');
  });
});

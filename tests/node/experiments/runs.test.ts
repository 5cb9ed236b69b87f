// Runs as the unit a user keeps: `train` records run.json (every report, checkpoint, saved model, how it ended; a
// diverging run is "failed" with its message); `sweep` trains one run per k into sub-folders, keeps its queue in
// sweep.json and resumes it; `runs` compares the folders like the paper's Table 2; the sweep plans and suggested ks.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../../src/contract/experiments/runs.ts';
import { runHeadStatsFromNorms } from '../../../src/app/model/run-head-stats.ts';
import { planSweepRuns, suggestSweepKs, type SweepPlan } from '../../../src/contract/experiments/sweep-plan.ts';
import { runCli, runCliWith } from '../../helpers/cli.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const TRIPLETS = generatedTriplets();

const SMALL = ['--batch', '2', '--query-length', '8', '--doc-length', '16', '--lr', '1e-3'];

/** `splade-lab train` or `sweep` of the tiny model on the generated triplets into `out`, at SMALL's sizes, then `extra`. */
const runOnTiny = (command: 'train' | 'sweep', out: string, ...extra: string[]) =>
  runCliWith(command, { model: workspace.model, triplets: TRIPLETS, out }, ...SMALL, ...extra);

let beir: string;
const workspace = tinyCliWorkspace('splade-runs-');
beforeAll(async () => {
  beir = join(workspace.root, 'beir');
  await import('node:fs/promises').then((fs) => fs.mkdir(join(beir, 'qrels'), { recursive: true }));
  await writeFile(
    join(beir, 'corpus.jsonl'),
    '{"_id": "d1", "text": "the cat sat"}\n{"_id": "d2", "text": "the sea and the river"}\n',
  );
  await writeFile(join(beir, 'queries.jsonl'), '{"_id": "q1", "text": "cat"}\n');
  await writeFile(join(beir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\n');
});

const record = async (dir: string) => JSON.parse(await readFile(join(dir, 'run.json'), 'utf8')) as RunRecord;

describe('a run', () => {
  it('train records every report, the checkpoints, the saved model and that it finished', async () => {
    const out = join(workspace.root, 'run');
    const { code } = await runOnTiny('train', out, '--steps', '4', '--checkpoint-every', '2', '--report-every', '1', '--k', '2');
    expect(code).toBe(0);
    const run = await record(out);
    expect(run).toMatchObject({
      id: out,
      k: 2,
      seed: 1,
      status: 'finished',
      step: 4,
      checkpoint: { name: 'step-00000004', step: 4 },
    });
    expect(run.reports.map((r) => r.step)).toEqual([0, 1, 2, 3]);
    expect(run.model.meanRowNorm).toBeCloseTo(2.5, 1);
    const rowNorms = run.model.rowNorms ?? [];
    expect(rowNorms.length).toBeGreaterThan(10);
    expect(rowNorms.reduce((a, b) => a + b, 0) / rowNorms.length).toBeCloseTo(run.model.meanRowNorm ?? NaN, 3);
    expect(run.data).toMatchObject({ name: 'triplets.tsv', triplets: 100 });
    expect(run.savedModel?.files).toContain('README.md');
    expect(run.trainingMs).toBeGreaterThan(0);
  });

  it('a diverging run is recorded as failed, with the message that stopped it', async () => {
    const out = join(workspace.root, 'diverged');
    expect((await runOnTiny('train', out, '--lr', '1e9', '--steps', '6', '--checkpoint-every', '2')).code).toBe(1);
    const run = await record(out);
    expect(run.status).toBe('failed');
    expect(run.message).toMatch(/training diverged at step \d+: NaN or Inf/);
    expect(run.savedModel).toBeNull();
  });
});

describe('sweeps', () => {
  it('trains one run per k, evaluates each, keeps the queue, and `runs` compares them like Table 2', async () => {
    const out = join(workspace.root, 'sweep');
    const { code, stdout } = await runOnTiny(
      'sweep',
      out,
      '--ks',
      '1,4',
      '--steps',
      '2',
      '--beir',
      beir,
      '--json',
      '--lambda-q',
      '0.25',
      '--lambda-d',
      '0.125',
      '--dropout',
      '0',
      '--warmup-ratio',
      '0.5',
    );
    expect(code).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.filter((e) => e.event === 'run-done').map((e) => e.run)).toEqual([join(out, 'k-1'), join(out, 'k-4')]);
    const plan = JSON.parse(await readFile(join(out, 'sweep.json'), 'utf8')) as SweepPlan;
    expect(plan.finished).toEqual([0, 1]);
    for (const k of [1, 4]) {
      const run = await record(join(out, `k-${k}`));
      expect(run).toMatchObject({ k, status: 'finished', sweep: { id: plan.id, total: 2 } });
      expect(run.evaluations[0].set.name).toBe(beir);
      // every run with the sweep's lambdas and recipe options
      expect(run.recipe).toMatchObject({ lambdaQueries: 0.25, lambdaDocuments: 0.125, schedule: { warmupRatio: 0.5 } });
      expect(run.recipe.dropout ?? 0).toBe(0);
    }
    const table = await runCli('runs', join(out, 'k-1'), join(out, 'k-4'), '--json');
    const rows = JSON.parse(table.stdout).rows;
    expect(rows.map((r: { k: number }) => r.k)).toEqual([1, 4]);
    expect(rows[1].dividedNorm).toBeCloseTo(rows[0].dividedNorm / 4, 6);
    expect(rows.filter((r: { best: boolean }) => r.best)).toHaveLength(1);
    expect((await runCli('runs', join(out, 'k-1'), join(out, 'k-4'))).stdout).toMatch(/^\* .*highest nDCG@10/m);
  });

  it('refuses lambdas beside --lambda-grid, which sets its own', async () => {
    const { code, stderr } = await runCliWith(
      'sweep',
      { model: workspace.model, triplets: TRIPLETS, out: join(workspace.root, 'grid') },
      '--lambda-grid',
      '--lambda-q',
      '0.1',
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/--lambda-grid sets the lambdas of each run/);
  });

  it('--resume continues an interrupted sweep with the runs left, and refuses to start over a sweep', async () => {
    const out = join(workspace.root, 'resumed');
    const sweepTwoKs = (...extra: string[]) => runOnTiny('sweep', out, '--ks', '1,2', '--steps', '2', ...extra);
    expect((await sweepTwoKs()).code).toBe(0);
    const plan = JSON.parse(await readFile(join(out, 'sweep.json'), 'utf8')) as SweepPlan;
    await writeFile(join(out, 'sweep.json'), JSON.stringify({ ...plan, finished: [0] })); // as if stopped after the first run
    const again = await sweepTwoKs();
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already holds a sweep (1 of 2 runs done): add --resume');
    const resumed = await sweepTwoKs('--resume', '--json');
    expect(resumed.code).toBe(0);
    const started = resumed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((e) => e.event === 'run-start');
    expect(started.map((e) => e.run)).toEqual([join(out, 'k-2')]);
  });

  it('plans: one run per k or per lambda pair, never both, never twice; suggested ks follow the head norm', () => {
    const base = { k: 1, steps: 2, batchSize: 2, queryLength: 8, documentLength: 16, checkpointEvery: 1, resume: false };
    expect(planSweepRuns({ base, ks: [1, 4] }).map((r) => r.k)).toEqual([1, 4]);
    expect(planSweepRuns({ base, lambdas: { queries: [1e-2, 5e-2], documents: [3e-3] } }).map((r) => r.lambdaQueries)).toEqual([
      1e-2, 5e-2,
    ]);
    expect(() => planSweepRuns({ base, ks: [1], lambdas: { queries: [1], documents: [1] } })).toThrow('either k or the lambdas');
    expect(() => planSweepRuns({ base, ks: [2, 2] })).toThrow('the same run twice');
    expect(() => planSweepRuns({ base, ks: [0] })).toThrow('k must be a number from 0.25 to 64');
    expect(suggestSweepKs(2.553)).toEqual([1, 2, 4, 8, 16]); // ModernBERT-base
    expect(suggestSweepKs(3.645)).toEqual([1, 4, 8, 16]); // RoBERTa-base: 3.645 / 2 = 1.82 is above 1.8
    expect(suggestSweepKs(0.407)).toEqual([0.25, 0.5, 1, 2]); // ALBERT-base
  });
});

describe("a run's head three ways", () => {
  const record = {
    k: 2,
    model: { name: 'm', key: 'm', architecture: 'BertForMaskedLM', meanRowNorm: 2.5, rowNorms: [1, 2, 3, 4] },
  };
  const trained = Float64Array.from([0.4, 0.6, 1.1, 5]);

  for (const logNorm of [false, true]) {
    it(`bins as loaded, divided by k and after training on one range that holds every row (log axis: ${logNorm})`, () => {
      const heads = runHeadStatsFromNorms(record, trained, { logNorm });
      if (!heads) throw new Error('expected the three heads');
      const { loaded, divided, trained: after } = heads;
      expect([loaded.k, divided.k, heads.k]).toEqual([1, 2, 2]);
      expect(divided.histogram.range).toEqual(loaded.histogram.range);
      expect(after.histogram.range).toEqual(loaded.histogram.range);
      for (const series of [loaded, divided, after]) expect(series.histogram.counts.reduce((a, b) => a + b, 0)).toBe(4);
      expect(loaded.summary.mean).toBeCloseTo(2.5, 12);
      expect(divided.summary).toMatchObject({ mean: 1.25, min: 0.5, max: 2 });
      expect(after.summary).toMatchObject({ min: 0.4, max: 5 });
      // The largest trained row lands in the last bin; dividing by k slides the loaded histogram left.
      expect(after.histogram.counts.at(-1)).toBe(1);
      const firstBin = (counts: number[]) => counts.findIndex((c) => c > 0);
      expect(firstBin(divided.histogram.counts)).toBeLessThan(firstBin(loaded.histogram.counts));
    });
  }

  it('is absent for a run that kept no norms or whose vocabulary differs', () => {
    expect(
      runHeadStatsFromNorms({ ...record, model: { ...record.model, rowNorms: null } }, trained, { logNorm: false }),
    ).toBeNull();
    expect(runHeadStatsFromNorms(record, trained.subarray(0, 3), { logNorm: false })).toBeNull();
  });
});

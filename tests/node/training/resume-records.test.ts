// A run killed after its newest checkpoint and resumed records what an uninterrupted run records (issue 33, item 5):
// the --log file, run.json's reports, probes, alarms and training time are cut back to the checkpoint, the steps
// trained again are counted once, and the resumed run reports and probes at the same steps. The log keeps every line
// that is not the run's own (issue 42, item 3): a user's notes and another run's steps.
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../../src/contract/experiments/runs.ts';
import { runCliWith } from '../../helpers/cli.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { ALARMING_LAMBDAS, TINY_BATCH_SHAPE } from '../../helpers/tiny-training-flags.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const TRIPLETS = generatedTriplets();

const workspace = tinyCliWorkspace('splade-resume-records-');

/** Lambdas this large on the tiny vocabulary raise alarms within a few steps (training-health-cli.test.ts). */
const HEAVY = [...TINY_BATCH_SHAPE, ...ALARMING_LAMBDAS];

const train = (out: string, log: string, ...extra: string[]) =>
  runCliWith('train', { model: workspace.model, triplets: TRIPLETS, out }, '--log', log, ...HEAVY, ...extra);

const record = async (dir: string) => JSON.parse(await readFile(join(dir, 'run.json'), 'utf8')) as RunRecord;
/** The log's lines of the run in `out` (every line of it when `out` is not given). */
const logged = async (log: string, out?: string) =>
  (await readFile(log, 'utf8'))
    .trim()
    .split('\n')
    .filter((line) => out === undefined || line.startsWith(`{"run":${JSON.stringify(resolve(out))},`))
    .map((line) => JSON.parse(line) as { run: string; step: number; total: number });

/**
 * Trains `name` straight, then copies it and leaves the copy as a process killed after its step-`at` checkpoint
 * leaves it (a run keeps its two newest checkpoints: `at` is 6 of 8): later checkpoints and the model gone, run.json and the log holding every later step (as flushed by
 * reports and alarms before the kill). Returns both run folders and logs.
 */
async function straightAndKilled(name: string, at: number, options: string[]) {
  const straight = { out: join(workspace.root, `${name}-straight`), log: join(workspace.root, `${name}-straight.jsonl`) };
  const killed = { out: join(workspace.root, `${name}-killed`), log: join(workspace.root, `${name}-killed.jsonl`) };
  const first = await train(straight.out, straight.log, ...options);
  expect(first.stderr).toBe('');
  expect(first.code).toBe(0);
  await cp(straight.out, killed.out, { recursive: true });
  // the killed run's log: its lines name the killed run's folder
  const ownLines = (await readFile(straight.log, 'utf8')).replaceAll(
    JSON.stringify(resolve(straight.out)),
    JSON.stringify(resolve(killed.out)),
  );
  await writeFile(killed.log, ownLines);
  for (let step = at + 2; step <= 8; step += 2)
    await rm(join(killed.out, 'checkpoint', `step-${String(step).padStart(8, '0')}`), { recursive: true });
  await rm(join(killed.out, 'model'), { recursive: true });
  const last = await record(killed.out);
  await writeFile(join(killed.out, 'run.json'), JSON.stringify({ ...last, id: killed.out, status: 'running', savedModel: null }));
  return { straight, killed };
}

describe('a run resumed after a kill', () => {
  it('logs each step once and counts its alarms, probes and training time once, as an uninterrupted run', async () => {
    const options = ['--steps', '8', '--checkpoint-every', '2', '--report-every', '1', '--probe-every', '2'];
    const { straight, killed } = await straightAndKilled('every-step', 6, options);
    // the log is shared: a note before the run's lines, another run's steps among and after them
    const other = JSON.stringify({ run: '/elsewhere/other-run', event: 'step', step: 8, total: 1 });
    const own = (await readFile(killed.log, 'utf8')).split('\n');
    const shared = ['# notes: lambdas of 300 on purpose', ...own.slice(0, 3), other, ...own.slice(3)].join('\n') + `${other}\n`;
    await writeFile(killed.log, shared);
    const resumed = await train(killed.out, killed.log, ...options, '--resume');
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('resuming');
    expect(resumed.stdout).toContain(
      `--log ${killed.log}: 2 lines after step 6 removed (those steps are trained again); 3 lines of other runs or notes kept as they were`,
    );
    const lines = (await readFile(killed.log, 'utf8')).split('\n');
    expect(lines[0]).toBe('# notes: lambdas of 300 on purpose');
    expect(lines.filter((line) => line === other)).toHaveLength(2);

    const a = await record(straight.out);
    const b = await record(killed.out);
    expect(b.status).toBe('finished');
    expect((await logged(killed.log, killed.out)).map((l) => l.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // the resumed steps are the same steps (bit-identical losses), recorded once
    expect((await logged(killed.log, killed.out)).map((l) => l.total)).toEqual((await logged(straight.log)).map((l) => l.total));
    expect(b.reports.map((r) => r.step)).toEqual(a.reports.map((r) => r.step));
    expect(b.probes?.map((p) => p.step)).toEqual([0, 2, 4, 6, 8]);
    expect(a.alarms?.length, 'these lambdas raise alarms').toBeGreaterThan(0);
    expect(b.alarms).toEqual(a.alarms);
    // one report per step: the training time is the sum of the steps kept, the ones trained twice counted once
    const stepTimes = b.reports.reduce((sum, r) => sum + r.msPerStep, 0);
    expect(b.trainingMs / stepTimes).toBeCloseTo(1, 9);
  });

  it('reports at the steps an uninterrupted run reports at, not at the step it resumed from', async () => {
    const options = ['--steps', '8', '--checkpoint-every', '2', '--report-every', '3', '--probe-every', '0'];
    const { straight, killed } = await straightAndKilled('every-third', 6, options);
    const resumed = await train(killed.out, killed.log, ...options, '--resume');
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const a = await record(straight.out);
    const b = await record(killed.out);
    expect((await logged(straight.log)).map((l) => l.step)).toEqual([1, 3, 6, 8]);
    expect((await logged(killed.log)).map((l) => l.step)).toEqual([1, 3, 6, 8]);
    expect(b.reports.map((r) => r.step)).toEqual([0, 2, 5, 7]);
    expect(b.alarms).toEqual(a.alarms);
  });
});

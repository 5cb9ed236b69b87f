// A resumed sweep trains only what its plan says (issue 33, items 6 and 8): other data, other ks, other lambdas or
// another recipe setting are refused with each difference named; a run whose last checkpoint was saved before the
// plan was is finished from that checkpoint, never trained again; an emptied sweep.json is refused naming the file.
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../../src/contract/experiments/runs.ts';
import type { SweepPlan } from '../../../src/contract/experiments/sweep-plan.ts';
import { runCli, runCliWith } from '../../helpers/cli.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { ALARMING_LAMBDAS } from '../../helpers/tiny-training-flags.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const TRIPLETS = generatedTriplets();

const SMALL = ['--batch', '2', '--query-length', '8', '--doc-length', '16', '--lr', '1e-3', '--steps', '2'];

/** A finished two-run sweep (k = 1 and 2), its plan rewritten as each test needs. */
let sweep: string;
const workspace = tinyCliWorkspace('splade-sweep-resume-');
beforeAll(async () => {
  sweep = join(workspace.root, 'sweep');
  const first = await runCliWith('sweep', { model: workspace.model, triplets: TRIPLETS, out: sweep }, ...SMALL, '--ks', '1,2');
  expect(first.stderr).toBe('');
  expect(first.code).toBe(0);
});

const planPath = () => join(sweep, 'sweep.json');
const readPlan = async () => JSON.parse(await readFile(planPath(), 'utf8')) as SweepPlan;
const resume = (...extra: string[]) =>
  runCli('sweep', '--model', workspace.model, '--out', sweep, ...SMALL, '--resume', '--json', ...extra);

describe('sweep --resume', () => {
  it('refuses other ks, other data or another recipe setting, naming each difference', async () => {
    const plan = await readPlan();
    await writeFile(planPath(), JSON.stringify({ ...plan, finished: [0] }));
    const ks = await resume('--triplets', TRIPLETS, '--ks', '1,4');
    expect(ks.code).toBe(1);
    expect(ks.stderr).toContain(`the sweep in ${sweep} was planned with other settings:`);
    expect(ks.stderr).toContain('ks: sweep [1,2], now [1,4]');
    const other = join(workspace.root, 'other.tsv');
    const lines = (await readFile(TRIPLETS, 'utf8')).split('\n');
    await writeFile(other, [lines[1], lines[0], ...lines.slice(2)].join('\n'));
    const data = await resume('--triplets', other, '--ks', '1,2', '--lambda-q', '0.1');
    expect(data.code).toBe(1);
    expect(data.stderr).toContain(`(the sweep's data: triplets.tsv; now: other.tsv)`);
    expect(data.stderr).toMatch(/data\.crc32: sweep "[0-9a-f]{8}", now "[0-9a-f]{8}"/);
    expect(data.stderr).toContain('lambdas: sweep [[0.05,0.003],[0.05,0.003]], now [[0.1,0.003],[0.1,0.003]]');
    const steps = await runCli(
      'sweep',
      ...[
        '--model',
        workspace.model,
        '--triplets',
        TRIPLETS,
        '--out',
        sweep,
        ...SMALL,
        '--ks',
        '1,2',
        '--resume',
        '--steps',
        '3',
      ],
    );
    expect(steps.code).toBe(1);
    expect(steps.stderr).toContain('steps: sweep 2, now 3');
    // nothing was trained: the second run is still the one the first sweep finished
    expect((await readPlan()).finished).toEqual([0]);
  });

  it('finishes a run whose last checkpoint was saved before the plan, without training it again', async () => {
    const plan = await readPlan();
    // as if killed after the first run's last checkpoint, before its plan entry was saved
    await writeFile(planPath(), JSON.stringify({ ...plan, finished: [] }));
    const checkpoint = join(sweep, 'k-1', 'checkpoint', 'step-00000002', 'model.safetensors');
    const before = await stat(checkpoint);
    const resumed = await resume('--triplets', TRIPLETS, '--ks', '1,2');
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const events = resumed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.filter((e) => e.event === 'run-start').map((e) => [e.run, e.resumed])).toEqual([
      [join(sweep, 'k-1'), true],
      [join(sweep, 'k-2'), true],
    ]);
    expect(events.filter((e) => e.event === 'step')).toEqual([]); // no step trained again
    expect((await stat(checkpoint)).mtimeMs).toBe(before.mtimeMs);
    const record = JSON.parse(await readFile(join(sweep, 'k-1', 'run.json'), 'utf8')) as RunRecord;
    expect(record).toMatchObject({ status: 'finished', step: 2 });
    expect(record.reports.map((r) => r.step)).toEqual([0, 1]);
    expect((await readPlan()).finished).toEqual([0, 1]);
  });

  it('a run killed after its checkpoint ends with the reports and alarms of an uninterrupted sweep', async () => {
    // lambdas this large on the tiny vocabulary raise alarms within a few steps
    const heavy = ['--ks', '1', '--steps', '8', '--checkpoint-every', '2', ...ALARMING_LAMBDAS];
    const straight = join(workspace.root, 'heavy-straight');
    const killed = join(workspace.root, 'heavy-killed');
    for (const out of [straight, killed]) {
      const swept = await runCliWith('sweep', { model: workspace.model, triplets: TRIPLETS, out }, ...SMALL, ...heavy);
      expect(swept.code).toBe(0);
    }
    // as a kill after the step-6 checkpoint leaves it: run.json and the plan as flushed before, step 8 gone
    const run = join(killed, 'k-1');
    await rm(join(run, 'checkpoint', 'step-00000008'), { recursive: true });
    await rm(join(run, 'model'), { recursive: true });
    const last = JSON.parse(await readFile(join(run, 'run.json'), 'utf8')) as RunRecord;
    await writeFile(join(run, 'run.json'), JSON.stringify({ ...last, status: 'running', savedModel: null }));
    const plan = JSON.parse(await readFile(join(killed, 'sweep.json'), 'utf8')) as SweepPlan;
    await writeFile(join(killed, 'sweep.json'), JSON.stringify({ ...plan, finished: [] }));
    const resumed = await runCliWith(
      'sweep',
      { model: workspace.model, triplets: TRIPLETS, out: killed },
      ...SMALL,
      ...heavy,
      '--resume',
    );
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const a = JSON.parse(await readFile(join(straight, 'k-1', 'run.json'), 'utf8')) as RunRecord;
    const b = JSON.parse(await readFile(join(run, 'run.json'), 'utf8')) as RunRecord;
    expect(b.reports.map((r) => [r.step, r.total])).toEqual(a.reports.map((r) => [r.step, r.total]));
    expect(b.probes?.map((p) => p.step)).toEqual(a.probes?.map((p) => p.step));
    expect(a.alarms?.length, 'these lambdas raise alarms').toBeGreaterThan(0);
    expect(b.alarms).toEqual(a.alarms);
  });

  it('refuses an emptied or wrong-shaped sweep.json, naming the file, the field and what to do', async () => {
    const plan = await readPlan();
    await writeFile(planPath(), '');
    const empty = await resume('--triplets', TRIPLETS, '--ks', '1,2');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain(`${planPath()} is empty`);
    expect(empty.stderr).toContain('move it away');
    await writeFile(planPath(), JSON.stringify({ ...plan, runs: 'k-1' }));
    const shaped = await resume('--triplets', TRIPLETS, '--ks', '1,2');
    expect(shaped.code).toBe(1);
    expect(shaped.stderr).toContain(`${planPath()}: "runs" is a string, expected an array`);
    await writeFile(planPath(), JSON.stringify(plan));
  });
});

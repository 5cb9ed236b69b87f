// A run.json that is empty or not a run record's shape (a power loss, a hand edit) is refused with the file, the field
// and what to do, before any step; `train --resume`, `runs` and `lambdas --measured` alike (issue 33, item 8). Moved
// away, the run resumes from its checkpoints with a new record.
import { spawnSync } from 'node:child_process';
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../../src/contract/experiments/runs.ts';
import { runCli, runCliWith } from '../../helpers/cli.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const TRIPLETS = generatedTriplets();

const SMALL = ['--batch', '2', '--query-length', '8', '--doc-length', '16', '--steps', '2', '--checkpoint-every', '1'];

let out: string;

let record: RunRecord;
const workspace = tinyCliWorkspace('splade-broken-record-');
beforeAll(async () => {
  out = join(workspace.root, 'run');
  const first = await runCliWith('train', { model: workspace.model, triplets: TRIPLETS, out }, ...SMALL);
  expect(first.code).toBe(0);
  record = JSON.parse(await readFile(join(out, 'run.json'), 'utf8')) as RunRecord;
  // as if killed after step 1's checkpoint: the step-2 one and the model gone
  await rm(join(out, 'checkpoint', 'step-00000002'), { recursive: true });
  await rm(join(out, 'model'), { recursive: true });
});

const resume = () => runCliWith('train', { model: workspace.model, triplets: TRIPLETS, out }, ...SMALL, '--resume', '--json');
const runJson = () => join(out, 'run.json');
const advice = "The run's checkpoints do not depend on it: move it away";

describe('a broken run.json', () => {
  it.each([
    ['empty', '', 'is empty (a write that never finished?)'],
    ['cut short', '{"id": "run", "rep', 'is not valid JSON'],
    ['an empty object', '{}', ': "id" is missing, expected a string'],
    ['reports of another type', () => JSON.stringify({ ...record, reports: 5 }), ': "reports" is a number, expected an array'],
    [
      'a report without its step',
      () => JSON.stringify({ ...record, reports: [{ ...record.reports[0], step: 'x' }] }),
      ': "reports[0].step" is a string, expected a number',
    ],
  ])('%s: train --resume, runs and lambdas --measured refuse it naming the file and the field', async (_, text, says) => {
    await writeFile(runJson(), typeof text === 'function' ? text() : text);
    const resumed = await resume();
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain(`${runJson()}${says.startsWith(':') ? '' : ' '}${says}`);
    expect(resumed.stderr).toContain(advice);
    expect(resumed.stdout).not.toContain('"event":"step"');
    const runs = await runCli('runs', out);
    expect(runs.code).toBe(1);
    expect(runs.stderr).toContain(runJson());
    const lambdas = await runCli('lambdas', '--measured', runJson());
    expect(lambdas.code).toBe(1);
    expect(lambdas.stderr).toContain(runJson());
  });

  it('ends the command with status 1 and the message, never an unhandled rejection or a crash', async () => {
    await writeFile(runJson(), '');
    const args = ['train', '--model', workspace.model, '--triplets', TRIPLETS, '--out', out, ...SMALL, '--resume'];
    const child = spawnSync(process.execPath, ['bin/splade-lab.mjs', ...args], { encoding: 'utf8', timeout: 60_000 });
    expect(child.signal).toBeNull();
    // one line: the message, no stack
    expect(child.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining(`splade-lab train: ${runJson()} is empty`)]);
    expect(child.stderr).toContain(advice);
    expect(child.status).toBe(1);
  });

  it('moved away, the run resumes from its checkpoint with a new record, written whole', async () => {
    await rename(runJson(), `${runJson()}.bad`);
    const resumed = await resume();
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const fresh = JSON.parse(await readFile(runJson(), 'utf8')) as RunRecord;
    expect(fresh).toMatchObject({ status: 'finished', step: 2, checkpoint: { name: 'step-00000002', step: 2 } });
    expect(fresh.reports.map((r) => r.step)).toEqual([1]);
    expect((await readdir(out)).filter((name) => name.includes('partial'))).toEqual([]);
  });
});

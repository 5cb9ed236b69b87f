// A real kill -9 at a moment chosen by the run's own progress (right after a checkpoint appears), then --resume: the
// --log file and run.json record every step exactly once and end as an uninterrupted run's do (issue 33, item 5).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../../src/contract/experiments/runs.ts';
import { runCli } from '../../helpers/cli.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const STEPS = 8;
const workspace = tinyCliWorkspace('splade-kill-');

const options = (out: string, log: string) => [
  'train',
  '--model',
  workspace.model,
  '--triplets',
  generatedTriplets(),
  '--out',
  out,
  '--log',
  log,
  '--steps',
  String(STEPS),
  '--batch',
  '2',
  '--query-length',
  '8',
  '--doc-length',
  '8',
  '--checkpoint-every',
  '2',
  '--report-every',
  '1',
  '--probe-every',
  '0',
];

/** Starts the CLI as its own process and kills it (SIGKILL) once its first checkpoint is on disk. */
function trainUntilFirstCheckpoint(out: string, log: string): Promise<NodeJS.Signals | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/splade-lab.mjs', ...options(out, log)], { stdio: 'ignore' });
    const folder = join(out, 'checkpoint');
    const poll = setInterval(() => {
      if (existsSync(folder) && readdirSync(folder).some((name) => /^step-\d+$/.test(name))) child.kill('SIGKILL');
    }, 5);
    child.on('error', reject);
    child.on('exit', (_code, signal) => (clearInterval(poll), resolve(signal)));
  });
}

const loggedSteps = async (log: string) =>
  (await readFile(log, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { step: number }).step);
const record = async (out: string) => JSON.parse(await readFile(join(out, 'run.json'), 'utf8')) as RunRecord;

describe('kill -9, then --resume', () => {
  it('the log and run.json hold every step once, as an uninterrupted run', { timeout: 180_000 }, async () => {
    const straight = { out: join(workspace.root, 'straight'), log: join(workspace.root, 'straight.jsonl') };
    expect((await runCli(...options(straight.out, straight.log))).code).toBe(0);
    const killed = { out: join(workspace.root, 'killed'), log: join(workspace.root, 'killed.jsonl') };
    expect(await trainUntilFirstCheckpoint(killed.out, killed.log)).toBe('SIGKILL');
    const resumed = await runCli(...options(killed.out, killed.log), '--resume');
    expect(resumed.code, resumed.stderr).toBe(0);
    const steps = Array.from({ length: STEPS }, (_, i) => i + 1);
    expect(await loggedSteps(killed.log)).toEqual(steps);
    expect(await loggedSteps(straight.log)).toEqual(steps);
    const [a, b] = [await record(straight.out), await record(killed.out)];
    expect(b.reports.map((r) => r.step)).toEqual(a.reports.map((r) => r.step));
    expect(b.status).toBe('finished');
    expect(b.step).toBe(a.step);
    expect((b.alarms ?? []).map((x) => x.rule)).toEqual((a.alarms ?? []).map((x) => x.rule));
  });
});

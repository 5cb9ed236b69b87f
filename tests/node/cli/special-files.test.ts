// Special files where a file is expected, and outputs where no folder can be made (issue 33, item 16): a FIFO, a
// device or a folder is refused at once, naming what it is (run.json, lambdas --measured, metrics --run, --triplets,
// --log); /proc/x as an output folder fails at once in every command (sweep, calibrate, handoff, lesson --write-task),
// and as the batch cache turns the cache off with one line. Each case is bounded: a hang fails the test in seconds.
import { spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliWith } from '../../helpers/cli.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const TRIPLETS = generatedTriplets();

const SMALL = ['--batch', '2', '--query-length', '8', '--doc-length', '16', '--steps', '2'];

const linux = process.platform === 'linux';

/** A finished run folder. */
let run: string;
const workspace = tinyCliWorkspace('splade-special-files-');
beforeAll(async () => {
  run = join(workspace.root, 'run');
  expect((await runCliWith('train', { model: workspace.model, triplets: TRIPLETS, out: run }, ...SMALL)).code).toBe(0);
});

const fifos: string[] = [];

/** A FIFO with no writer: opening it to read waits for ever. */
function makeFifo(path: string): string {
  const made = spawnSync('mkfifo', [path]);
  if (made.status !== 0) throw new Error(`mkfifo ${path}: ${made.stderr}`);
  fifos.push(path);
  return path;
}

// a reader left waiting on a FIFO (a command that hung) is let go, so that a failing run of this file still ends
afterEach(() => {
  for (const fifo of fifos.splice(0)) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // no reader waiting: nothing to let go
    }
  }
});

/** The command's result, or a failure when it is still running after `seconds` (it hangs). */
async function within<T>(seconds: number, running: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hangs = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still running after ${seconds} s: it hangs`)), seconds * 1000);
  });
  try {
    return await Promise.race([running, hangs]);
  } finally {
    clearTimeout(timer);
  }
}

describe('special files where a file is expected', () => {
  it.runIf(linux)('a FIFO as run.json: train --resume and runs refuse it at once', async () => {
    await rm(join(run, 'run.json'));
    makeFifo(join(run, 'run.json'));
    const resumed = await within(
      20,
      runCliWith('train', { model: workspace.model, triplets: TRIPLETS, out: run }, ...SMALL, '--resume'),
    );
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain(`${join(run, 'run.json')} is a FIFO (named pipe), not a file`);
    const runs = await within(10, runCli('runs', run));
    expect(runs.code).toBe(1);
    expect(runs.stderr).toContain('is a FIFO (named pipe), not a file');
    await rm(join(run, 'run.json'));
  });

  it.runIf(linux)('a FIFO or /dev/zero as lambdas --measured, a FIFO or a folder as metrics --run: refused at once', async () => {
    const fifo = makeFifo(join(workspace.root, 'measured.fifo'));
    const measured = await within(10, runCli('lambdas', '--measured', fifo));
    expect(measured.code).toBe(1);
    expect(measured.stderr).toContain(`${fifo} is a FIFO (named pipe), not a file`);
    const zero = await within(10, runCli('lambdas', '--measured', '/dev/zero'));
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain('/dev/zero is a character device, not a file');
    const qrels = join(workspace.root, 'qrels.txt');
    await writeFile(qrels, 'q1 0 d1 1\n');
    const trecRun = makeFifo(join(workspace.root, 'run.fifo'));
    const metrics = await within(10, runCli('metrics', '--qrels', qrels, '--run', trecRun));
    expect(metrics.code).toBe(1);
    expect(metrics.stderr).toContain(`--run ${trecRun} is a FIFO (named pipe), not a file: give the path of a regular file`);
    const folder = await within(10, runCli('metrics', '--qrels', workspace.root, '--run', qrels));
    expect(folder.stderr).toContain(`--qrels ${workspace.root} is a folder, not a file`);
  });

  it('a folder as --triplets or --log: refused before any work', async () => {
    const data = join(workspace.root, 'data');
    await mkdir(data);
    const triplets = await runCliWith(
      'train',
      { model: workspace.model, triplets: data, out: join(workspace.root, 'never-1') },
      ...SMALL,
    );
    expect(triplets.code).toBe(1);
    expect(triplets.stderr).toContain(`--triplets ${data} is a folder, not a file`);
    const out = join(workspace.root, 'never-2');
    const log = await runCliWith('train', { model: workspace.model, triplets: TRIPLETS, out }, '--log', data, ...SMALL);
    expect(log.code).toBe(1);
    expect(log.stderr).toContain(`--log ${data} is a folder; give the path of a file`);
    expect(existsSync(out)).toBe(false); // nothing started
  });
});

describe.runIf(linux)('/proc/x as an output: fails at once (no folder can be made there)', () => {
  const cannot = (option: string, dir: string) => `${option} ${dir}: cannot create this folder`;

  it('sweep --out, calibrate --out, handoff --out and lesson --write-task', async () => {
    const base = ['--model', workspace.model, '--triplets', TRIPLETS];
    const sweep = await within(20, runCli('sweep', ...base, '--out', '/proc/x/sweep', ...SMALL, '--ks', '1'));
    expect(sweep.code).toBe(1);
    expect(sweep.stderr).toContain(cannot('--out', '/proc/x/sweep'));
    const calibrate = await within(
      20,
      runCli('calibrate', ...base, '--out', '/proc/x/calibrate', '--target-q', '10', '--target-d', '20', ...SMALL),
    );
    expect(calibrate.code).toBe(1);
    expect(calibrate.stderr).toContain(cannot('--out', '/proc/x/calibrate'));
    const handoff = await within(20, runCli('handoff', ...base, '--k', '1', '--out', '/proc/x/handoff'));
    expect(handoff.code).toBe(1);
    expect(handoff.stderr).toContain(cannot('--out', '/proc/x/handoff'));
    const lesson = await within(20, runCli('lesson', '--write-task', '/proc/x/task'));
    expect(lesson.code).toBe(1);
    expect(lesson.stderr).toContain(cannot('--write-task', '/proc/x/task'));
  });

  it('the batch cache there is turned off with one line, and the run trains', async () => {
    const before = process.env.SPLADE_LAB_BATCH_CACHE;
    process.env.SPLADE_LAB_BATCH_CACHE = '/proc/x/batches';
    try {
      const out = join(workspace.root, 'uncached');
      const trained = await within(30, runCliWith('train', { model: workspace.model, triplets: TRIPLETS, out }, ...SMALL));
      expect(trained.stderr).toBe(
        'splade-lab: the batch cache /proc/x/batches cannot be written (ENOENT); batches are tokenized afresh (SPLADE_LAB_BATCH_CACHE moves it)\n',
      );
      expect(trained.code).toBe(0);
    } finally {
      process.env.SPLADE_LAB_BATCH_CACHE = before;
    }
  });
});

// Training health through `splade-lab train` on the tiny model: probes in the JSON log (before the first step and
// every N steps, with top terms, active dimensions and scores that equal the vectors' dot products), alarms in the log
// and in run.json, --stop-on-alarm saving a checkpoint and exiting 3, and --resume going on past it.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliWith } from '../../helpers/cli.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { ALARMING_LAMBDAS, TINY_BATCH_SHAPE } from '../../helpers/tiny-training-flags.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const TRIPLETS = generatedTriplets();

const workspace = tinyCliWorkspace('splade-health-cli-');

const SMALL = [...TINY_BATCH_SHAPE, '--lr', '1e-3'];

const train = (out: string, ...extra: string[]) =>
  runCliWith('train', { model: workspace.model, triplets: TRIPLETS, out }, ...SMALL, ...extra);
const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

describe('training health in splade-lab train', () => {
  it('logs the probes before the first step and every N steps, and keeps them and the alarms in run.json', async () => {
    const out = join(workspace.root, 'probes');
    const log = join(workspace.root, 'probes-log.jsonl');
    const { code, stdout, stderr } = await train(
      out,
      '--steps',
      '4',
      '--probe-every',
      '2',
      '--probe',
      'the heart',
      '--probe',
      'a river',
      '--probe-doc',
      'the blood of the heart',
      '--log',
      log,
      '--json',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const events = lines(stdout);
    const probes = events.filter((e) => e.event === 'probe');
    expect(probes.map((p) => p.step)).toEqual([0, 2, 4]);
    for (const p of probes) {
      expect(p.probes.map((x: { role: string; text: string }) => `${x.role}:${x.text}`)).toEqual([
        'query:the heart',
        'query:a river',
        'document:the blood of the heart',
      ]);
      for (const x of p.probes) {
        expect(x.terms.length).toBeLessThanOrEqual(10);
        expect(x.terms.length).toBe(Math.min(10, x.activeDims));
        // largest weights first
        for (let i = 1; i < x.terms.length; i++) expect(x.terms[i].weight).toBeLessThanOrEqual(x.terms[i - 1].weight);
      }
      expect(p.scores.length).toBe(2);
      expect(p.scores[0].length).toBe(1);
    }
    // the model moves between probes
    expect(probes[2].scores).not.toEqual(probes[0].scores);
    const record = JSON.parse(await readFile(join(out, 'run.json'), 'utf8'));
    expect(record.recipe.optimizer.weightDecay).toBe(0); // the Trainer's default
    expect(record.probes.map((p: { step: number }) => p.step)).toEqual([0, 2, 4]);
    expect(record.alarms).toEqual(events.filter((e) => e.event === 'alarm').map(({ event: _, stops: __, ...alarm }) => alarm));
    const steps = events.filter((e) => e.event === 'step');
    // --log keeps exactly the step lines, each naming its run first
    expect(
      (await readFile(log, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(steps.map((step) => ({ run: resolve(out), ...step })));
    for (const s of steps) {
      expect(s.stepsPerSecond).toBeCloseTo(1000 / s.msPerStep, 6);
      // tokens attended per step: at most 4 queries of 8 and 8 documents of 16, at least one token each
      expect(s.tokensPerSecond / s.stepsPerSecond).toBeGreaterThanOrEqual(12);
      expect(s.tokensPerSecond / s.stepsPerSecond).toBeLessThanOrEqual(4 * 8 + 8 * 16);
      // the FLOPS a batch of 64 would see: the batch-variance part shrinks, so it is at most the batch's own
      expect(s.paperBatchFlopsQueries).toBeLessThanOrEqual(s.flopsQueries * (1 + 1e-6));
      expect(s.paperBatchFlopsQueries).toBeGreaterThan(0);
      expect(s.squaredNormDocuments).toBeGreaterThan(0);
    }
  });

  it('stops on an alarm with --stop-on-alarm (a checkpoint kept, exit 3), and --resume with --ignore-alarm goes on', async () => {
    const out = join(workspace.root, 'stop');
    // the tiny vocabulary (about 60 pieces) is mostly active, and lambdas this large soon dominate the loss: an alarm comes within a few steps
    const heavy = ['--steps', '8', ...ALARMING_LAMBDAS, '--report-every', '1', '--probe-every', '0'];
    const first = await train(out, ...heavy, '--stop-on-alarm', '--json');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(3);
    const events = lines(first.stdout);
    const alarm = events.find((e) => e.event === 'alarm' && e.stops);
    expect(alarm, first.stdout).toBeDefined();
    const stopped = events.at(-1);
    expect(stopped.event).toBe('stopped');
    expect(stopped.step).toBe(alarm.step);
    expect(stopped.checkpoint).toContain(`step-${String(alarm.step).padStart(8, '0')}`);
    const record = JSON.parse(await readFile(join(out, 'run.json'), 'utf8'));
    expect(record.status).toBe('paused');
    expect(record.checkpoint.step).toBe(alarm.step);
    const raised = events.filter((e) => e.event === 'alarm').map((e) => e.rule);
    const ignore = raised.flatMap((rule: string) => ['--ignore-alarm', rule]);
    const resumed = await train(out, ...heavy, '--stop-on-alarm', ...ignore, '--resume', '--json');
    expect(resumed.stderr).toBe('');
    const after = lines(resumed.stdout);
    expect(after.find((e) => e.event === 'resume').step).toBe(alarm.step);
    if (resumed.code === 3) {
      // a later, different alarm may stop it again, but never one that was let pass
      expect(raised).not.toContain(after.find((e) => e.event === 'alarm' && e.stops).rule);
    } else {
      expect(resumed.code).toBe(0);
      expect(after.at(-1).event).toBe('done');
    }
  });

  it('refuses an unknown alarm rule, a blank probe and a weight decay above 1', async () => {
    const bad = await train(join(workspace.root, 'bad'), '--steps', '1', '--stop-on-alarm', '--ignore-alarm', 'boredom');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Unknown alarm "boredom"');
    const blank = await train(join(workspace.root, 'blank'), '--steps', '1', '--probe', '  ');
    expect(blank.code).toBe(1);
    expect(blank.stderr).toContain('Probe text 1 is blank');
    const decay = await train(join(workspace.root, 'decay'), '--steps', '1', '--weight-decay', '2');
    expect(decay.code).toBe(1);
    expect(decay.stderr).toContain('The weight decay must be a number from 0 to 1, got 2');
  });
});

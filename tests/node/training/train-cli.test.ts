// `splade-lab train` end to end on the tiny model and the MS MARCO toy triplets: reports, checkpoints, a saved model
// that loadModel, inspect and eval read, the head divided by k before step 0, resume through the CLI, and refusals.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { loadModel } from '../../../src/model/load-model.ts';
import { decoderWeightName } from '../../../src/model/layout.ts';
import { readCheckpoint } from '../../../src/train/training-checkpoint.ts';
import { createFolderCheckpointStore } from '../../../src/train/checkpoint-store-node.ts';
import { runCli, runCliWith } from '../../helpers/cli.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { TINY_BATCH_SHAPE } from '../../helpers/tiny-training-flags.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const TRIPLETS = generatedTriplets();

const workspace = tinyCliWorkspace('splade-train-cli-');
beforeAll(async () => {
  const beir = join(workspace.root, 'beir');
  await mkdir(join(beir, 'qrels'), { recursive: true });
  const docs = [
    { _id: 'd1', title: '', text: 'the blood of the heart' },
    { _id: 'd2', title: '', text: 'the sea and the river' },
    { _id: 'd3', title: '', text: 'a study of the brain' },
  ];
  await writeFile(join(beir, 'corpus.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
  await writeFile(
    join(beir, 'queries.jsonl'),
    [
      { _id: 'q1', text: 'heart blood' },
      { _id: 'q2', text: 'brain study' },
    ]
      .map((q) => JSON.stringify(q))
      .join('\n') + '\n',
  );
  await writeFile(join(beir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n');
});

/** Small, fast settings for SwiftShader. */
const SMALL = [...TINY_BATCH_SHAPE, '--lr', '1e-3'];

const train = (out: string, ...extra: string[]) =>
  runCliWith('train', { model: workspace.model, triplets: TRIPLETS, out }, ...SMALL, ...extra);

function sameBits(a: Float32Array, b: Float32Array): boolean {
  return (
    a.length === b.length &&
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength))
  );
}

describe('splade-lab train', () => {
  it('trains, reports loss parts and sparsity as JSON lines, checkpoints, and saves a model that loadModel, inspect and eval read', async () => {
    const out = join(workspace.root, 'run');
    const { code, stdout, stderr } = await train(out, '--steps', '4', '--checkpoint-every', '2', '--report-every', '2', '--json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    // probes and alarms come between these (training-health-cli.test.ts checks them)
    const progress = events.filter((e) => e.event !== 'probe' && e.event !== 'alarm');
    expect(progress.map((e) => e.event)).toEqual(['start', 'step', 'step', 'checkpoint', 'step', 'checkpoint', 'done']);
    const steps = events.filter((e) => e.event === 'step');
    expect(steps.map((s) => s.step)).toEqual([1, 2, 4]);
    for (const s of steps) {
      for (const key of ['rank', 'flopsQueries', 'flopsDocuments', 'total', 'activeQueries', 'activeDocuments', 'msPerStep']) {
        expect(Number.isFinite(s[key]) && s[key] > 0, `${key} of step ${s.step}: ${s[key]}`).toBe(true);
      }
      expect(s.total).toBeCloseTo(s.rank + s.lambdaQueries * s.flopsQueries + s.lambdaDocuments * s.flopsDocuments, 5);
    }
    expect(steps[0].lr).toBe(0); // warm-up starts at 0
    expect(steps[0].lambdaQueries).toBe(0); // the FLOPS ramp too
    expect(steps[2].position).toEqual({ epoch: 0, index: 16 });
    expect(events.at(-1).files).toEqual(
      expect.arrayContaining(['config.json', 'model.safetensors', 'vocab.txt', 'modules.json', '1_SpladePooling/config.json']),
    );

    const saved = await loadModel(createFolderSource(join(out, 'model')));
    const last = await readCheckpoint(createFolderCheckpointStore(join(out, 'checkpoint')), 'step-00000004');
    expect(last.t).toBe(4);
    for (const [name, p] of last.params) expect(sameBits(saved.params.get(name)!.data, p.data), name).toBe(true);
    const original = await loadModel(createFolderSource(workspace.model));
    expect(sameBits(saved.params.get('layers.0.qkv.weight')!.data, original.params.get('layers.0.qkv.weight')!.data)).toBe(false);

    const inspect = await runCli('inspect', join(out, 'model'), '--json');
    expect(inspect.code).toBe(0);
    const evaluation = await runCli(
      'eval',
      '--model',
      join(out, 'model'),
      '--beir',
      join(workspace.root, 'beir'),
      '--json',
      '--query-length',
      '8',
      '--doc-length',
      '16',
    );
    expect(evaluation.stderr).toBe('');
    expect(evaluation.code).toBe(0);
    const report = JSON.parse(evaluation.stdout);
    expect(report.ndcg_cut_10).toBeGreaterThanOrEqual(0);
    expect(report.ndcg_cut_10).toBeLessThanOrEqual(1);
    expect(report.efficiency.query_active_dims).toBeGreaterThan(0);
  });

  it('--k 4 divides the head before training: a 0-step run saves W / 4 and a step-0 checkpoint that records k', async () => {
    const out = join(workspace.root, 'k4');
    const { code, stderr } = await train(out, '--steps', '0', '--k', '4');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const original = await loadModel(createFolderSource(workspace.model));
    const saved = await loadModel(createFolderSource(join(out, 'model')));
    const head = decoderWeightName(original.config);
    expect(
      sameBits(
        saved.params.get(head)!.data,
        original.params.get(head)!.data.map((x) => x / 4),
      ),
    ).toBe(true);
    expect(sameBits(saved.params.get('layers.0.qkv.weight')!.data, original.params.get('layers.0.qkv.weight')!.data)).toBe(true);
    const checkpoint = await readCheckpoint(createFolderCheckpointStore(join(out, 'checkpoint')), 'step-00000000');
    expect(checkpoint.k).toBe(4);
    expect(sameBits(checkpoint.params.get(head)!.data, saved.params.get(head)!.data)).toBe(true);
  });

  it('--resume continues from the newest checkpoint and ends exactly where an uninterrupted run ends', async () => {
    const straight = join(workspace.root, 'straight');
    const interrupted = join(workspace.root, 'interrupted');
    const args = ['--steps', '4', '--checkpoint-every', '2', '--k', '2'];
    expect((await train(straight, ...args)).code).toBe(0);
    expect((await train(interrupted, ...args)).code).toBe(0);
    // As if the process had died after step 2: only the step-2 checkpoint is left, and no model.
    await rm(join(interrupted, 'checkpoint', 'step-00000004'), { recursive: true });
    await rm(join(interrupted, 'model'), { recursive: true });
    const resumed = await train(interrupted, ...args, '--resume');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('resuming');
    expect(resumed.stdout).toContain('step 4/4');
    expect(resumed.stdout).not.toContain('step 1/4');
    const a = await loadModel(createFolderSource(join(straight, 'model')));
    const b = await loadModel(createFolderSource(join(interrupted, 'model')));
    for (const [name, p] of a.params) expect(sameBits(b.params.get(name)!.data, p.data), name).toBe(true);
    expect((await readdir(join(interrupted, 'checkpoint'))).sort()).toEqual(['step-00000002', 'step-00000004']);
  });

  it('refuses to overwrite a checkpoint, to resume with other options, and names a malformed triplet line', async () => {
    const out = join(workspace.root, 'run');
    const again = await train(out, '--steps', '4');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already holds a checkpoint (step-00000004)');
    const other = await train(out, '--steps', '4', '--resume', '--lr', '2e-3');
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('recipe.schedule.peakLr: checkpoint 0.001, now 0.002');
    // The same triplets under another name resume (nothing left to do here); other triplets do not.
    const moved = join(workspace.root, 'moved.tsv');
    const lines = (await readFile(TRIPLETS, 'utf8')).split('\n');
    await writeFile(moved, lines.join('\n'));
    const resumeOnMoved = () =>
      runCliWith('train', { model: workspace.model, triplets: moved, out }, ...SMALL, '--steps', '4', '--resume');
    const same = await resumeOnMoved();
    expect(same.stderr).toBe('');
    expect(same.code).toBe(0);
    await writeFile(moved, [lines[1], lines[0], ...lines.slice(2)].join('\n'));
    const reordered = await resumeOnMoved();
    expect(reordered.code).toBe(1);
    expect(reordered.stderr).toContain('data.crc32: checkpoint');
    const bad = join(workspace.root, 'bad.tsv');
    await writeFile(bad, 'q\tp\tn\nq2\tp2\n');
    const broken = await runCliWith('train', { model: workspace.model, triplets: bad, out: join(workspace.root, 'bad') });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`${bad} line 2: 2 tab-separated fields, expected 3`);
    const none = await train(join(workspace.root, 'empty'), '--steps', '2', '--resume');
    expect(none.stderr).toContain('holds no checkpoint to resume');
  });
});

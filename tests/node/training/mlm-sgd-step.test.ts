// Issue 30's acceptance: one SGD step of `splade-lab mlm --batches f.jsonl --no-shuffle --optimizer sgd` moves every
// weight (encoder and head) by -lr x the float64 gradient of the mean masked cross-entropy, on BERT and ModernBERT, with
// a row without labels and one with all its labels; with 2 x 2 accumulation by the mean of the micro-batches'
// gradients. The float64 gradient is checked against central finite differences of the float64 loss.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import type { ModelParams } from '../../../src/model/layout.ts';
import { loadModel, type LoadedModel } from '../../../src/model/load-model.ts';
import { toFloat64Params } from '../../../src/model/weights.ts';
import { IGNORED_LABEL, mlmStepReference } from '../../../src/train/mlm/mlm-training-reference.ts';
import type { MlmBatch } from '../../../src/train/mlm/mlm-trainer.ts';
import { Random } from '../../../src/util/random.ts';
import { runCli } from '../../helpers/cli.ts';
import { expectClose } from '../../helpers/compare.ts';
import { centralDifference } from '../../helpers/gradcheck.ts';
import { writeTinyFamilyModels } from '../../helpers/tiny-model-families.ts';

const LR = 0.5;
const T = 10;

let root: string;
const models: Record<string, { dir: string; loaded: LoadedModel }> = {};

/** Four sequences of different lengths (padded to T in batches): sequence 1 has no label, sequence 2 only labels. */
function sequences(V: number): { input_ids: number[]; attention_mask: number[]; labels: number[] }[] {
  const random = new Random(7);
  const lengths = [7, 5, 10, 8];
  return lengths.map((length, s) => {
    const ids = Array.from({ length }, (_, i) => (i === 0 ? 2 : i === length - 1 ? 3 : 5 + random.int(V - 5)));
    const labels = ids.map((id, i) => {
      if (s === 1) return IGNORED_LABEL;
      if (s === 2) return 5 + random.int(V - 5);
      return i > 0 && i < length - 1 && random.next() < 0.4 ? id : IGNORED_LABEL;
    });
    if (s === 0) labels[2] = ids[2]; // at least one
    return { input_ids: ids, attention_mask: ids.map(() => 1), labels };
  });
}

/** The records padded to T as the batches file reader pads them (pad id 0, mask 0, label -100), as micro-batches. */
function batchesOf(records: ReturnType<typeof sequences>, size: number, pad: number): MlmBatch[] {
  const out: MlmBatch[] = [];
  for (let b = 0; b < records.length; b += size) {
    const rows = records.slice(b, b + size);
    const batch = {
      inputIds: new Int32Array(size * T).fill(pad),
      attentionMask: new Uint8Array(size * T),
      labels: new Int32Array(size * T).fill(IGNORED_LABEL),
    };
    rows.forEach((r, i) => {
      batch.inputIds.set(r.input_ids, i * T);
      batch.attentionMask.set(r.attention_mask, i * T);
      batch.labels.set(r.labels, i * T);
    });
    out.push(batch);
  }
  return out;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-mlm-step-'));
  Object.assign(models, await writeTinyFamilyModels(root, ['bert', 'modernbert']));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** Runs one SGD step through the CLI and returns every parameter's update, the starting point and the step's report. */
async function cliStep(arch: string, batch: number, gradAccum: number) {
  const { dir, loaded } = models[arch];
  const records = sequences(loaded.config.vocabSize);
  const file = join(root, `${arch}-${batch}x${gradAccum}.jsonl`);
  await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const out = join(root, `${arch}-${batch}x${gradAccum}-run`);
  const { code, stdout, stderr } = await runCli(
    'mlm',
    ...['--model', dir, '--batches', file, '--out', out, '--no-shuffle', '--optimizer', 'sgd', '--weight-decay', '0'],
    ...['--warmup-ratio', '0', '--max-grad-norm', '0', '--dropout', '0', '--steps', '1', '--lr', String(LR)],
    ...['--batch', String(batch), '--grad-accum', String(gradAccum), '--max-length', String(T), '--json'],
  );
  expect(stderr).toBe('');
  expect(code).toBe(0);
  const saved = await loadModel(createFolderSource(join(out, 'model')));
  const start = toFloat64Params(loaded.params);
  const updates: ModelParams = {};
  for (const name of Object.keys(start)) {
    const tensor = saved.params.get(name);
    expect(tensor, `the trained model has ${name}`).toBeDefined();
    updates[name] = Float64Array.from(tensor!.data, (x, i) => x - start[name][i]);
  }
  const events = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const reference = mlmStepReference(loaded.config, start, batchesOf(records, batch, loaded.tokenizer.specialIds.pad), T);
  return { updates, reference, step: events.find((e) => e.event === 'step'), events, out };
}

describe('splade-lab mlm: one SGD step against the float64 gradient', () => {
  it.each([
    ['bert', 4, 1],
    ['modernbert', 4, 1],
    ['bert', 2, 2],
  ] as const)('%s, %i sequences x %i micro-batches: every weight moves by -lr x the gradient', async (arch, batch, accum) => {
    const { updates, reference, step, events } = await cliStep(arch, batch, accum);
    expect(step.loss).toBeCloseTo(reference.loss, 4);
    let worst = 0;
    let largest = 0;
    for (const [name, update] of Object.entries(updates)) {
      const expected = reference.grads[name].map((g) => -LR * g);
      const tensorLargest = expected.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      largest = Math.max(largest, tensorLargest);
      expectClose(`${arch}: update of ${name}`, update, expected, { rtol: 2e-3, atol: 3e-7 + 1e-3 * tensorLargest });
      const norm = Math.hypot(...expected);
      if (norm > 0) worst = Math.max(worst, Math.hypot(...update.map((u, i) => u - expected[i])) / norm);
    }
    expect(largest).toBeGreaterThan(1e-4);
    // the relative error of the worst tensor, reported in the note
    console.log(`${arch} ${batch}x${accum}: worst tensor's relative error ${worst.toExponential(2)}`);
    // the head is measured before the first step and after the last
    expect(events.filter((e) => e.event === 'head').map((e) => e.step)).toEqual([0, 1]);
  });

  it('the float64 gradient equals central finite differences of the float64 loss', () => {
    const { loaded } = models.bert;
    const params = toFloat64Params(loaded.params);
    const batches = batchesOf(sequences(loaded.config.vocabSize), 4, loaded.tokenizer.specialIds.pad);
    const { grads } = mlmStepReference(loaded.config, params, batches, T);
    const h = 1e-5;
    for (const name of ['embeddings.word.weight', 'layers.0.qkv.weight', 'head.dense.weight'].filter((n) => n in params)) {
      for (const i of [0, 7, params[name].length - 1]) {
        const numeric = centralDifference(params[name], i, () => mlmStepReference(loaded.config, params, batches, T).loss, h);
        expect(grads[name][i], `${name}[${i}]`).toBeCloseTo(numeric, 6);
      }
    }
  });

  it('a batches file with no label to predict is a clear error, and nothing is saved', async () => {
    const { dir, loaded } = models.bert;
    const records = sequences(loaded.config.vocabSize).map((r) => ({ ...r, labels: r.labels.map(() => IGNORED_LABEL) }));
    const file = join(root, 'no-labels.jsonl');
    await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const out = join(root, 'no-labels-run');
    const { code, stderr } = await runCli(
      'mlm',
      '--model',
      dir,
      '--batches',
      file,
      '--out',
      out,
      '--steps',
      '1',
      '--max-length',
      String(T),
    );
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/no-labels\.jsonl.*(no label|nothing to predict)/);
    await expect(readFile(join(out, 'model', 'config.json'))).rejects.toThrow();
  });

  it('--mlm-probability 0 is a clear error before any work', async () => {
    const { dir } = models.bert;
    const file = join(root, 'text.txt');
    await writeFile(file, 'the cat sat on the mat\nthe dog ran\n');
    const { code, stderr } = await runCli(
      'mlm',
      '--model',
      dir,
      '--text',
      file,
      '--out',
      join(root, 'p0'),
      '--mlm-probability',
      '0',
    );
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/--mlm-probability.*above 0/);
  });
});

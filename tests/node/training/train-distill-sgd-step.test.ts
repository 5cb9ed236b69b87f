// Issue 31's acceptance for distillation: one SGD step of `splade-lab train --loss marginmse` and `--loss kl` moves
// every weight (encoder and head, head divided by k = 2) by -lr x the float64 gradient of the stated loss plus FLOPS,
// on BERT and ModernBERT, with rows of 1 and of 3 negatives (marginmse also on [pos, neg_1..n] score lists, turned into
// margins and said once), each step reporting what equal student scores give; the data check refuses labels the loss
// cannot use and warns of squashed teacher scores (and not of real cross-encoder margins).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { parseTripletsJsonl } from '../../../src/io/triplets/triplets-jsonl.ts';
import { equalScoresLoss } from '../../../src/contract/training/loss-levels.ts';
import { memoryTripletSource } from '../../../src/io/triplets/triplet-source.ts';
import { loadModel, type LoadedModel } from '../../../src/model/load-model.ts';
import { TripletBatches } from '../../../src/train/splade/batches.ts';
import { spladeTrainingReference } from '../../../src/train/splade/splade-training-reference.ts';
import type { RankingLossKind } from '../../../src/contract/training/recipe.ts';
import { Random } from '../../../src/util/random.ts';
import { runCli } from '../../helpers/cli.ts';
import { expectUpdates, plainStepRequest, startingPoint, trainOneStepInProcess } from '../../helpers/one-step-run.ts';
import type { TrainRequest } from '../../../src/contract/training/training-request.ts';
import { writeTinyFamilyModels } from '../../helpers/tiny-model-families.ts';

const K = 2;
const LR = 0.05;
const TEXTS = [
  ['cat on a mat', 'the cat sat on the mat', 'the dog ran in the forest', 'a bird on the roof', 'the mat was red'],
  ['gene drug study', 'a drug study of the gene', 'the sun and the moon', 'a study of the sea', 'drug prices rose'],
  ['heart blood', 'the blood of the heart', 'a song of the sea', 'the heart of the city', 'blood tests'],
  ['sparse vector search', 'sparse vector search of the data', 'the car on the road', 'dense vectors', 'a search party'],
];

/**
 * Four rows of `negatives` negatives with teacher labels as `loss` reads them: cross-encoder logits, unsquashed;
 * with `scoreLists`, marginmse rows hold the n + 1 scores [pos, neg_1..n] under sentence-transformers' name `scores`.
 */
function distillJsonl(loss: 'marginmse' | 'kl', negatives: number, squash = false, scoreLists = false): string {
  const random = new Random(negatives * 10 + (loss === 'kl' ? 1 : 0));
  return (
    TEXTS.map(([query, positive, ...rest]) => {
      const scores = [6 + 4 * random.next(), ...rest.slice(0, negatives).map(() => -4 + 8 * random.next())];
      const squashed = squash ? scores.map((s) => 1 / (1 + Math.exp(-s))) : scores;
      const label = loss === 'kl' || scoreLists ? squashed : squashed.slice(1).map((s) => squashed[0] - s);
      const row: Record<string, unknown> = { query, positive };
      rest.slice(0, negatives).forEach((negative, i) => (row[i === 0 ? 'negative' : `negative_${i}`] = negative));
      row[scoreLists ? 'scores' : 'label'] = label.length === 1 ? label[0] : label;
      return JSON.stringify(row);
    }).join('\n') + '\n'
  );
}

const PLAIN = ['--optimizer', 'sgd', '--steps', '1', '--batch', '4', '--lr', String(LR), '--weight-decay', '0'];
PLAIN.push('--warmup-ratio', '0', '--flops-ramp-ratio', '0', '--max-grad-norm', '0', '--dropout', '0', '--no-shuffle');
PLAIN.push('--k', String(K), '--query-length', '8', '--doc-length', '12', '--lambda-q', '0.05', '--lambda-d', '0.003');
PLAIN.push('--report-every', '1', '--json', '--no-batch-cache');

let root: string;
const models: Record<string, { dir: string; loaded: LoadedModel }> = {};
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-distill-step-'));
  Object.assign(models, await writeTinyFamilyModels(root, ['bert', 'modernbert']));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** The run's events, by the CLI (a process, its JSON lines) or by the application layer's trainModel in this process. */
type Via = 'the CLI' | 'the trainer';

/** One step through trainModel (the CLI's path without its process), with the CLI's result shape. */
async function trainInProcess(arch: string, jsonl: string, out: string, request: Partial<TrainRequest>) {
  const run = join(root, out);
  const full = { ...plainStepRequest(K, LR), ...request };
  return { code: 0, stderr: '', events: await trainOneStepInProcess(models[arch].dir, jsonl, `${out}.jsonl`, run, full) };
}

async function train(arch: string, jsonl: string, out: string, extra: string[]) {
  const file = join(root, `${out}.jsonl`);
  await writeFile(file, jsonl);
  const args = ['train', '--model', models[arch].dir, '--triplets', file, '--out', join(root, out), ...PLAIN, ...extra];
  const result = await runCli(...args);
  const events = result.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { event: string; [key: string]: unknown });
  return { ...result, events };
}

describe('one SGD step of a distillation loss against the float64 gradient', () => {
  it.each([
    ['bert', 'marginmse', 1, 1, 'the trainer', 'margins'],
    ['bert', 'marginmse', 3, 1, 'the CLI', 'margins'],
    ['bert', 'marginmse', 3, 1, 'the CLI', 'score lists'],
    ['bert', 'kl', 1, 1, 'the trainer', 'scores'],
    ['bert', 'kl', 3, 2, 'the trainer', 'scores'],
    ['modernbert', 'marginmse', 1, 1, 'the trainer', 'margins'],
    ['modernbert', 'marginmse', 3, 1, 'the trainer', 'margins'],
    ['modernbert', 'marginmse', 1, 1, 'the trainer', 'score lists'],
    ['modernbert', 'kl', 1, 0.5, 'the CLI', 'scores'],
    ['modernbert', 'kl', 3, 1, 'the trainer', 'scores'],
  ] as const)(
    '%s --loss %s, %i negatives (temperature %f) through %s, on %s',
    async (arch, loss, negatives, temperature, via: Via, labels) => {
      const { loaded } = models[arch];
      const scoreLists = labels === 'score lists';
      const jsonl = distillJsonl(loss, negatives, false, scoreLists);
      const out = `${arch}-${loss}-${negatives}${scoreLists ? '-scores' : ''}`;
      const extra = ['--loss', loss, ...(loss === 'kl' ? ['--temperature', String(temperature)] : [])];
      const { code, stderr, events } =
        via === 'the CLI'
          ? await train(arch, jsonl, out, extra)
          : await trainInProcess(arch, jsonl, out, { loss, ...(loss === 'kl' ? { temperature } : {}) });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const teacher = events.find((e) => e.event === 'teacher');
      const width = loss === 'kl' || scoreLists ? negatives + 1 : negatives;
      expect(teacher, 'the data check is reported').toMatchObject({ rows: 4, width });
      expect(teacher?.warning).toBeUndefined();
      // [pos, neg_1..n] scores for marginmse: turned into margins, said once (the run's notes)
      const notes = events.filter((e) => e.event === 'note').map((e) => String(e.note));
      if (via === 'the CLI')
        expect(notes.filter((note) => note.includes('scores per row'))).toEqual(
          scoreLists
            ? [
                `the rows of ${out}.jsonl hold ${negatives + 1} teacher scores per row ([positive, negative_1..${negatives}]): ` +
                  `turned into ${negatives} margins (pos - neg_i), as sentence-transformers does`,
              ]
            : [],
        );
      const saved = await loadModel(createFolderSource(join(root, out, 'model')));
      const start = startingPoint(loaded, K);
      const { triplets } = parseTripletsJsonl(jsonl, 'rows.jsonl');
      const source = memoryTripletSource(triplets);
      const shape = { batchSize: 4, queryLength: 8, documentLength: 12, dataOrder: 'file' as const, negatives };
      const { batch } = await new TripletBatches(source, loaded.tokenizer, shape, 1).next();
      const settings = { queryLength: 8, documentLength: 12, tau: temperature, lambdaQueries: 0.05, lambdaDocuments: 0.003 };
      const reference = spladeTrainingReference(loaded.config, start, batch, { ...settings, loss: loss as RankingLossKind });
      const step = events.find((e) => e.event === 'step') as { rank: number; rankAtEqualScores?: number } | undefined; // the CLI's steps count from 1
      expect(step?.rank).toBeCloseTo(reference.rank, 3);
      // the step reports what equal student scores would give on its batch, the level the stall alarm watches
      const equal = equalScoresLoss(loss, 4, negatives, loss === 'kl' ? temperature : 1, batch.teacher);
      expect(step?.rankAtEqualScores).toBeCloseTo(equal, 10);
      const largest = expectUpdates(`${arch} ${loss} ${negatives}`, saved, start, (name) =>
        reference.grads[name].map((g) => -LR * g),
      );
      expect(largest).toBeGreaterThan(1e-4);
      // the loss is the distillation loss, not the contrastive one: the contrastive gradient moves the weights otherwise
      const contrastive = spladeTrainingReference(loaded.config, start, batch, { ...settings, tau: 1 });
      const name = 'layers.0.qkv.weight';
      const gap = Math.max(...reference.grads[name].map((g, i) => Math.abs(g - contrastive.grads[name][i])));
      expect(gap).toBeGreaterThan(1e-2 * Math.max(...reference.grads[name].map(Math.abs)));
    },
  );
});

describe('the teacher labels are checked before training', () => {
  it('warns of margins squashed into [0, 1] (the CLI) and of scores squashed by a sigmoid (the trainer), naming the fix', async () => {
    const cli = await train('bert', distillJsonl('marginmse', 1, true), 'squashed-marginmse', ['--loss', 'marginmse']);
    expect(cli.code).toBe(0);
    const inProcess = await trainInProcess('bert', distillJsonl('kl', 1, true), 'squashed-kl', { loss: 'kl' });
    for (const { events } of [cli, inProcess]) {
      const teacher = events.find((e) => e.event === 'teacher');
      expect(String(teacher?.warning)).toMatch(/squashed by a sigmoid.*raw logits/);
    }
  });

  it('refuses a loss whose labels are missing or of the wrong count, before any step', async () => {
    const margins = distillJsonl('marginmse', 1);
    let result = await train('bert', margins, 'kl-on-margins', ['--loss', 'kl']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--loss kl needs 2 teacher scores per row.*have 1/);
    const unlabelled = margins.replace(/,"label":[^}]*/g, '');
    result = await train('bert', unlabelled, 'no-labels', ['--loss', 'marginmse']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/needs 1 teacher margin per row .* has none/);
    result = await train('bert', margins, 'margins-temperature', ['--loss', 'marginmse', '--temperature', '2']);
    expect(result.stderr).toMatch(/MarginMSE has none/);
  });

  it('a row without labels among labelled rows, or a label that is not a number, names its line', async () => {
    const lines = distillJsonl('marginmse', 1).trim().split('\n');
    lines[2] = lines[2].replace(/,"label":[^}]*/, '');
    let result = await train('bert', lines.join('\n') + '\n', 'one-unlabelled', ['--loss', 'marginmse']);
    expect(result.stderr).toMatch(/line 3: no "label", but earlier rows have teacher labels/);
    lines[2] = lines[2].replace(/}$/, ',"label":"high"}');
    result = await train('bert', lines.join('\n') + '\n', 'text-label', ['--loss', 'marginmse']);
    expect(result.stderr).toMatch(/line 3: "label" must be a finite number/);
  });
});

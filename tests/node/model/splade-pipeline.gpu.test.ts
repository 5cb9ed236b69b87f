// Texts to sparse vectors on the GPU (encoder + fused SPLADE head) equal the float64 model; rescaling by k;
// a full fine-tuning step (encoder and head) lowers the loss on a repeated batch.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { GpuModel } from '../../../src/model/gpu-model.ts';
import { loadModel, type LoadedModel } from '../../../src/model/load-model.ts';
import { spladeForward } from '../../../src/model/reference/splade.ts';
import { paddedLength, SpladeTextEncoder } from '../../../src/model/splade-encoder.ts';
import { toFloat64Params } from '../../../src/model/weights.ts';
import { SpladeTrainer, type TripletBatch } from '../../../src/train/splade/trainer.ts';
import { paperRecipe } from '../../../src/contract/training/recipe.ts';
import { expectClose } from '../../helpers/compare.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

let root: string;

const loaded: Record<string, LoadedModel> = {};
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-pipeline-'));
  const options = {
    bert: {},
    modernbert: { localAttention: 4, globalAttnEveryNLayers: 2 },
    gte: { ropeScalingFactor: 2 },
    albert: { embeddingSize: 8 },
  };
  for (const arch of ['bert', 'modernbert', 'gte', 'albert'] as const) {
    await writeTinySpladeModel(join(root, arch), arch, options[arch]);
    loaded[arch] = await loadModel(createFolderSource(join(root, arch)));
  }
});
afterAll(() => rm(root, { recursive: true, force: true }));

const TEXTS = [
  'the cat sat on the mat',
  'sparse vector search',
  'protein',
  'the results of a study of the brain and the heart and blood',
];

describe('SPLADE text encoder', () => {
  it('pads to powers of two within the maximum length', () => {
    expect([paddedLength(1, 256), paddedLength(9, 256), paddedLength(300, 256), paddedLength(20, 16)]).toEqual([8, 16, 256, 16]);
  });

  it.each(['bert', 'modernbert', 'gte', 'albert'])('%s: GPU vectors equal the float64 model, text by text', async (arch) => {
    const ctx = await gpuContext();
    const { config, params, tokenizer } = loaded[arch];
    const encoder = new SpladeTextEncoder(ctx, GpuModel.upload(ctx, config, params), tokenizer, 3);
    const vectors = await encoder.encode(TEXTS, { maxLength: 12 });
    const reference = toFloat64Params(params);
    TEXTS.forEach((text, i) => {
      const ids = tokenizer.encode(text, { maxLength: 12 }).ids;
      const expected = spladeForward(config, reference, {
        ids: Int32Array.from(ids),
        mask: ids.map(() => 1),
        B: 1,
        T: ids.length,
      });
      const dense = new Float64Array(config.vocabSize);
      vectors[i].indices.forEach((id, j) => (dense[id] = vectors[i].values[j]));
      expect(vectors[i].indices.length, `${text}: active dimensions`).toBeGreaterThan(0);
      expectClose(`pooled vector of "${text}"`, dense, expected.pooled, { rtol: 1e-4, atol: 1e-5 });
    });
  });

  it('keeps only the top-k weights when asked', async () => {
    const ctx = await gpuContext();
    const { config, params, tokenizer } = loaded.bert;
    const encoder = new SpladeTextEncoder(ctx, GpuModel.upload(ctx, config, params), tokenizer, 2);
    const [full] = await encoder.encode(['the cat sat'], { maxLength: 16 });
    const [pruned] = await encoder.encode(['the cat sat'], { maxLength: 16, topK: 3 });
    expect(full.indices.length).toBeGreaterThan(3);
    expect(pruned.indices.length).toBe(3);
    const top3 = [...full.values].sort((a, b) => b - a).slice(0, 3);
    expect([...pruned.values].sort((a, b) => b - a)).toEqual(top3);
  });
});

describe('full fine-tuning', () => {
  it.each(['bert', 'modernbert'])('%s: a repeated batch drives the ranking loss down', async (arch) => {
    const ctx = await gpuContext();
    const { config, params, tokenizer } = loaded[arch];
    const model = GpuModel.upload(ctx, config, params);
    const [B, Tq, Td] = [2, 8, 12];
    const trainer = new SpladeTrainer(ctx, model, paperRecipe(20, B, { queryLength: Tq, documentLength: Td, peakLr: 3e-3 }));
    // Negatives share most words with their positives, so the untrained model cannot tell them apart.
    const batch = nearMissBatch(tokenizer, Tq, Td);
    const losses = [];
    for (let step = 0; step < 20; step++) {
      const l = await trainer.step([batch], step === 0 || step === 19);
      if (l) losses.push(l);
    }
    expect(losses[1].rank).toBeLessThan(0.5 * losses[0].rank);
    expect(await trainer.readHealth()).toEqual({ finite: true, parts: [], firstStep: null });
    const updated = await model.download();
    expect(updated.get('layers.0.qkv.weight')!.data).not.toEqual(params.get('layers.0.qkv.weight')!.data); // the encoder trained too
  });
});

describe('a report step', () => {
  // issue 45: a report step read its losses, each statistic, the gradient norm and the health flags one by one, and
  // each read waited for the queue to drain; now one readback takes them all, micro-batches' copies included.
  it('reads losses, statistics, gradient norm and health in one readback, the micro-batches copied in order', async () => {
    const ctx = await gpuContext();
    const { config, params, tokenizer } = loaded.bert;
    const [B, Tq, Td] = [2, 8, 12];
    const batch = nearMissBatch(tokenizer, Tq, Td);
    const recipe = paperRecipe(4, B, { queryLength: Tq, documentLength: Td, peakLr: 3e-3 });
    const reads = vi.spyOn(ctx, 'read');
    const readAlls = vi.spyOn(ctx, 'readAll');
    try {
      const whole = new SpladeTrainer(ctx, GpuModel.upload(ctx, config, params), recipe);
      const once = (await whole.step([batch], true))!;
      expect(await whole.readHealth()).toEqual({ finite: true, parts: [], firstStep: null });
      expect([reads.mock.calls.length, readAlls.mock.calls.length], 'reads and combined reads of a report step').toEqual([0, 1]);
      // the combined read gives what reading each tensor alone gives
      expect(once.rank).toBe((await whole.objective.readLosses()).rank);
      const counts = await ctx.read(whole.objective.activeCounts);
      expect(once.batch.activeQueries).toBe((counts[0] + counts[1]) / 2);

      // two micro-batches: the first one's losses are copied before the second overwrites them, and the report is the
      // mean of that copy (which, from the same start, is the one-batch step's) and the second's (still in place)
      reads.mockClear();
      readAlls.mockClear();
      const halves = new SpladeTrainer(ctx, GpuModel.upload(ctx, config, params), { ...recipe, gradAccum: 2 });
      const twice = (await halves.step([batch, batch], true))!;
      await halves.readHealth();
      expect([reads.mock.calls.length, readAlls.mock.calls.length], 'with 2 micro-batches').toEqual([0, 1]);
      const second = await halves.objective.readLosses();
      expect(twice.rank).toBeCloseTo((once.rank + second.rank) / 2, 6);
      expect(twice.flopsDocuments).toBeCloseTo((once.flopsDocuments + second.flopsDocuments) / 2, 4);

      // a step that reports nothing reads nothing; the health asked after it is read then
      readAlls.mockClear();
      const before = { ...ctx.counts };
      await halves.step([batch, batch], false);
      expect(readAlls).not.toHaveBeenCalled();
      const plain = { ...ctx.counts };
      expect(plain.readbacks - before.readbacks, 'readbacks the context counted for a plain step').toBe(0);
      // one submit per micro-batch, two where the forward and the backward are submitted apart (a watchdog's budget)
      expect([2, 4], 'submits of a step of two micro-batches').toContain(plain.submits - before.submits);
      await halves.readHealth();
      expect(reads).toHaveBeenCalledTimes(2); // the losses read above, then the flags
      const afterHealth = { ...ctx.counts };
      await halves.step([batch, batch], true);
      expect(ctx.counts.readbacks - afterHealth.readbacks, 'readbacks the context counted for a report step').toBe(1);
      expect(ctx.counts.dispatches - afterHealth.dispatches, 'a report step records the dispatches of a plain one').toBe(
        plain.dispatches - before.dispatches,
      );
    } finally {
      reads.mockRestore();
      readAlls.mockRestore();
    }
  });
});

describe('training health', () => {
  // issue 11: at lr 1e9 the parameters blow up to Inf and NaN within a few steps, while the losses can stay finite
  // (the head's ReLU takes a NaN logit for 0); the sticky GPU flags name the parts and the first bad step.
  it('flags the first step that leaves a gradient or a parameter non-finite (lr 1e9)', async () => {
    const ctx = await gpuContext();
    const { config, params, tokenizer } = loaded.bert;
    const model = GpuModel.upload(ctx, config, params);
    const [B, Tq, Td] = [2, 8, 12];
    const trainer = new SpladeTrainer(ctx, model, paperRecipe(8, B, { queryLength: Tq, documentLength: Td, peakLr: 1e9 }));
    const batch = nearMissBatch(tokenizer, Tq, Td);
    let firstBad = -1;
    for (let step = 0; step < 8 && firstBad < 0; step++) {
      await trainer.step([batch], false);
      const health = await trainer.readHealth();
      if (!health.finite) {
        firstBad = step;
        expect(health.firstStep).toBe(step);
        expect(health.parts.some((part) => part.startsWith('parameter '))).toBe(true);
      }
    }
    expect(firstBad, 'training at lr 1e9 went non-finite within 8 steps').toBeGreaterThanOrEqual(0);
    const updated = await model.download();
    const nonFinite = [...updated.values()].filter((t) => t.data.some((x) => !Number.isFinite(x))).length;
    expect(nonFinite, 'the flags agree with the downloaded parameters').toBeGreaterThan(0);
  });
});

function tokenizeBatch(
  tokenizer: LoadedModel['tokenizer'],
  queries: string[],
  positives: string[],
  negatives: string[],
  Tq: number,
  Td: number,
): TripletBatch {
  const pack = (texts: string[], T: number) => {
    const ids = new Int32Array(texts.length * T);
    const mask = new Uint8Array(texts.length * T);
    texts.forEach((text, row) => {
      const e = tokenizer.encode(text, { maxLength: T });
      e.ids.forEach((id, t) => ((ids[row * T + t] = id), (mask[row * T + t] = 1)));
    });
    return { ids, mask };
  };
  const q = pack(queries, Tq);
  const d = pack([...positives, ...negatives], Td);
  return { queryIds: q.ids, queryMask: q.mask, documentIds: d.ids, documentMask: d.mask };
}

/** Two triplets whose negatives share most words with their positives, at lengths Tq and Td. */
function nearMissBatch(tokenizer: LoadedModel['tokenizer'], Tq: number, Td: number): TripletBatch {
  return tokenizeBatch(
    tokenizer,
    ['cat on a mat', 'gene drug study'],
    ['the cat sat on the mat', 'a drug study of the gene'],
    ['the dog sat on the mat', 'a drug study of the cell'],
    Tq,
    Td,
  );
}

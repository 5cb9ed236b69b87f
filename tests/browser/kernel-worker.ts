// Runs GPU kernels inside a module Web Worker in Chromium and compares them with the float64 references.
import { acquireGpuContext } from '../../src/gpu/context.ts';
import { ContrastiveLoss } from '../../src/kernels/contrastive-loss.ts';
import { HeadStats } from '../../src/kernels/head-stats.ts';
import { contrastiveLossForward } from '../../src/kernels/reference/contrastive-loss.ts';
import { headRowNorms, summarizeNorms } from '../../src/kernels/reference/head-stats.ts';
import { sparseScoresForward } from '../../src/kernels/reference/sparse-scores.ts';
import { SparseScores } from '../../src/kernels/sparse-scores.ts';
import { SpladeHead } from '../../src/kernels/splade-head.ts';
import { GpuEncoderPass } from '../../src/model/gpu-encoder.ts';
import { GpuModel } from '../../src/model/gpu-model.ts';
import { parseModelConfig } from '../../src/model/config.ts';
import { spladeForward } from '../../src/model/reference/splade.ts';
import { makeTinyCheckpoint } from '../../src/model/tiny-model.ts';
import { loadParameters, toFloat64Params } from '../../src/model/weights.ts';
import { Random } from '../../src/util/random.ts';

export interface WorkerCheck {
  name: string;
  worstError: number;
}

async function run(): Promise<{ adapter: string; checks: WorkerCheck[] }> {
  const ctx = await acquireGpuContext(self.navigator.gpu, 'browser-worker-test');
  const random = new Random(11);
  const [B, N, V, d] = [3, 6, 257, 7];
  const q = random.uniforms(B * V, 0, 2).map(Math.fround);
  const docs = random.uniforms(N * V, 0, 2).map(Math.fround);
  const scoresKernel = new SparseScores(ctx, B, N, V);
  const loss = new ContrastiveLoss(ctx, B, N, 1, 0);
  const tq = ctx.tensor('q', [B, V], 'f32', q);
  const td = ctx.tensor('d', [N, V], 'f32', docs);
  const scores = ctx.tensor('scores', [B, N], 'f32');
  const dscores = ctx.tensor('dscores', [B, N], 'f32');
  const losses = ctx.tensor('losses', [1], 'f32');
  await ctx.run('worker losses', (enc) => {
    scoresKernel.forward(enc, { queries: tq, docs: td, scores });
    loss.forwardBackward(enc, { scores, dscores, losses });
  });
  const expectedScores = sparseScoresForward(q, docs, B, N, V);
  const gotScores = await ctx.read(scores);
  const checks: WorkerCheck[] = [
    { name: 'scores', worstError: worstRelative(gotScores, expectedScores) },
    {
      name: 'contrastive loss',
      worstError: worstRelative(await ctx.read(losses), [contrastiveLossForward(expectedScores, B, N, 1)]),
    },
  ];
  const W = random.normals(V * d).map(Math.fround);
  const stats = await new HeadStats(ctx, V, d, { pairs: 50 }).measure(ctx.tensor('W', [V, d], 'f32', W), 4);
  const expected = summarizeNorms(headRowNorms(W.map((x) => x / 4), V, d));
  checks.push({
    name: 'head statistics',
    worstError: worstRelative([stats.summary.mean, stats.summary.max, stats.summary.p50], [expected.mean, expected.max, expected.p50]),
  });
  checks.push({ name: 'ModernBERT encoder + fused SPLADE head', worstError: await spladeModelError(ctx) });
  const adapter = `${ctx.adapter.vendor} ${ctx.adapter.architecture}`;
  ctx.destroy();
  return { adapter, checks };
}

/** A tiny ModernBERT (rotary, local and global layers, GeGLU) encoded on the GPU against the float64 model. */
async function spladeModelError(ctx: Awaited<ReturnType<typeof acquireGpuContext>>): Promise<number> {
  const tiny = makeTinyCheckpoint('modernbert', {
    seed: 2, vocabSize: 40, hidden: 16, layers: 2, heads: 2, intermediate: 24, headNormScale: 2.5, localAttention: 4, globalAttnEveryNLayers: 2,
  });
  const config = parseModelConfig(tiny.config);
  const params = loadParameters(config, tiny.tensors);
  const [B, T, V] = [2, 7, config.vocabSize];
  const ids = Int32Array.from({ length: B * T }, (_, i) => 1 + ((i * 7) % (V - 1)));
  const mask = Array.from({ length: B * T }, (_, i) => (i < T + 4 ? 1 : 0));
  const model = GpuModel.upload(ctx, config, params);
  const pass = new GpuEncoderPass(model, B, T, 'worker check');
  const head = new SpladeHead(ctx, { B, T, d: config.hidden, V });
  const pooled = ctx.tensor('pooled', [B, V], 'f32');
  const argmax = ctx.tensor('argmax', [B, V], 'u32');
  pass.setInputs(ids, mask);
  await ctx.run('worker model', (enc) => {
    pass.forward(enc);
    head.forward(enc, { hidden: pass.headHidden, mask: pass.mask, weight: model.decoderWeight, bias: model.decoderBias, pooled, argmax });
  });
  const expected = spladeForward(config, toFloat64Params(params), { ids, mask, B, T });
  return worstRelative(await ctx.read(pooled), expected.pooled);
}

function worstRelative(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < expected.length; i++) {
    worst = Math.max(worst, Math.abs(actual[i] - expected[i]) / Math.max(1, Math.abs(expected[i])));
  }
  return worst;
}

run().then(
  (result) => self.postMessage({ ok: true, ...result }),
  (error) => self.postMessage({ ok: false, error: String(error?.stack ?? error) }),
);

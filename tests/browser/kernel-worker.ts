// Runs GPU kernels inside a module Web Worker in Chromium through the shared kernel-test helper, and a whole tiny
// ModernBERT + SPLADE head against the float64 model.
import { acquireGpuContext } from '../../src/gpu/acquire.ts';
import { ContrastiveLoss } from '../../src/kernels/contrastive-loss.ts';
import { HeadStats } from '../../src/kernels/head-stats.ts';
import { LayerNorm } from '../../src/kernels/layernorm.ts';
import { contrastiveLossBackward, contrastiveLossForward } from '../../src/kernels/reference/contrastive-loss.ts';
import { headRowNorms, summarizeNorms } from '../../src/kernels/reference/head-stats.ts';
import { layerNormBackward, layerNormForward } from '../../src/kernels/reference/layernorm.ts';
import { sparseScoresBackward, sparseScoresForward } from '../../src/kernels/reference/sparse-scores.ts';
import { SparseScores } from '../../src/kernels/sparse-scores.ts';
import { SpladeHead } from '../../src/kernels/splade-head.ts';
import { GpuEncoderPass } from '../../src/model/gpu-encoder.ts';
import { GpuModel } from '../../src/model/gpu-model.ts';
import { parseModelConfig } from '../../src/model/config.ts';
import { spladeForward } from '../../src/model/reference/splade.ts';
import { makeTinyCheckpoint } from '../../src/model/tiny-model.ts';
import { loadParameters, toFloat64Params } from '../../src/model/weights.ts';
import { Random } from '../../src/util/random.ts';
import { checkKernel, type KernelTest } from '../helpers/check-kernel.ts';

export interface WorkerCheck {
  name: string;
  /** What the shared kernel-test helper (tests/helpers/check-kernel.ts) found wrong; empty when the kernel passed. */
  failures: string[];
}

/** A few kernels through the same helper the Node suite uses: forward, gradients, repeats, memory. */
function kernelTests(random: Random): KernelTest[] {
  const [B, N, V, d] = [3, 6, 257, 7];
  const scores: KernelTest = {
    name: 'sparse scores + contrastive loss',
    tensors: {
      queries: { shape: [B, V], data: random.uniforms(B * V, 0, 2) },
      docs: { shape: [N, V], data: random.uniforms(N * V, 0, 2) },
      scores: { shape: [B, N] },
      dscores: { shape: [B, N] },
      dqueries: { shape: [B, V] },
      ddocs: { shape: [N, V] },
      losses: { shape: [1] },
    },
    build: (ctx, t) => {
      const scoring = new SparseScores(ctx, B, N, V);
      const loss = new ContrastiveLoss(ctx, B, N, 1, 0);
      const { queries, docs, dscores, dqueries, ddocs } = t;
      return {
        record: (enc) => {
          scoring.forward(enc, { queries, docs, scores: t.scores });
          loss.forwardBackward(enc, { scores: t.scores, dscores, losses: t.losses });
          scoring.backward(enc, { queries, docs, dscores, dqueries, ddocs });
        },
      };
    },
    reference: (h) => {
      const s = sparseScoresForward(h.queries, h.docs, B, N, V);
      const ds = contrastiveLossBackward(s, B, N, 1);
      const g = sparseScoresBackward(h.queries, h.docs, ds, B, N, V);
      return { scores: s, losses: [contrastiveLossForward(s, B, N, 1)], dscores: ds, dqueries: g.dqueries, ddocs: g.ddocs };
    },
    tolerance: { rtol: 1e-4, atol: 1e-4 },
    checks: { scores: {}, losses: {}, dscores: {}, dqueries: { accumulates: true }, ddocs: { accumulates: true } },
  };
  const [rows, C] = [33, 130];
  const layernorm: KernelTest = {
    name: 'layernorm',
    tensors: {
      inp: { shape: [rows, C] },
      weight: { shape: [C] },
      bias: { shape: [C] },
      out: { shape: [rows, C] },
      mean: { shape: [rows] },
      rstd: { shape: [rows] },
      dout: { shape: [rows, C] },
      dinp: { shape: [rows, C] },
      dweight: { shape: [C] },
      dbias: { shape: [C] },
    },
    build: (ctx, t) => {
      const norm = new LayerNorm(ctx, { N: rows, C }, { bias: true, eps: 1e-5 });
      const { out, mean, rstd, inp, weight, bias, dinp, dweight, dbias, dout } = t;
      return {
        record: (enc) => {
          norm.forward(enc, { out, mean, rstd, inp, weight, bias });
          norm.backward(enc, { dinp, dweight, dbias, dout, inp, weight, mean, rstd });
        },
      };
    },
    reference: (h) => {
      const r = { out: new Float64Array(rows * C), mean: new Float64Array(rows), rstd: new Float64Array(rows) };
      layerNormForward(r.out, r.mean, r.rstd, h.inp, h.weight, h.bias, rows, C, 1e-5);
      const g = { dinp: new Float64Array(rows * C), dweight: new Float64Array(C), dbias: new Float64Array(C) };
      layerNormBackward(g.dinp, g.dweight, g.dbias, h.dout, h.inp, h.weight, r.mean, r.rstd, rows, C);
      return { ...r, ...g };
    },
    tolerance: { rtol: 1e-4, atol: 1e-4 },
    checks: { out: {}, mean: {}, rstd: {}, dinp: {}, dweight: { accumulates: true }, dbias: { accumulates: true } },
  };
  const W = random.normals(V * d);
  const stats: KernelTest = {
    name: 'head statistics',
    tensors: { weight: { shape: [V, d], data: W } },
    build: (ctx, t) => {
      const kernel = new HeadStats(ctx, V, d, { pairs: 50 });
      return {
        run: async () => {
          const s = await kernel.measure(t.weight, 4);
          return { summary: [s.summary.mean, s.summary.max, s.summary.p50] };
        },
      };
    },
    reference: (h) => {
      const expected = summarizeNorms(
        headRowNorms(
          h.weight.map((x) => x / 4),
          V,
          d,
        ),
      );
      return { summary: [expected.mean, expected.max, expected.p50] };
    },
    checks: { summary: { tol: { rtol: 1e-4, atol: 1e-4 } } },
  };
  return [scores, layernorm, stats];
}

async function run(): Promise<{ adapter: string; checks: WorkerCheck[]; modelError: number }> {
  const ctx = await acquireGpuContext(self.navigator.gpu, 'browser-worker-test');
  const checks: WorkerCheck[] = [];
  for (const test of kernelTests(new Random(11)))
    checks.push({ name: test.name, failures: (await checkKernel(ctx, test)).failures });
  const modelError = await spladeModelError(ctx);
  const adapter = `${ctx.adapter.vendor} ${ctx.adapter.architecture}`;
  ctx.destroy();
  return { adapter, checks, modelError };
}

/** A tiny ModernBERT (rotary, local and global layers, GeGLU) encoded on the GPU against the float64 model. */
async function spladeModelError(ctx: Awaited<ReturnType<typeof acquireGpuContext>>): Promise<number> {
  const tiny = makeTinyCheckpoint('modernbert', {
    seed: 2,
    vocabSize: 40,
    hidden: 16,
    layers: 2,
    heads: 2,
    intermediate: 24,
    headNormScale: 2.5,
    localAttention: 4,
    globalAttnEveryNLayers: 2,
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
    head.forward(enc, {
      hidden: pass.headHidden,
      mask: pass.mask,
      weight: model.decoderWeight,
      bias: model.decoderBias,
      pooled,
      argmax,
    });
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

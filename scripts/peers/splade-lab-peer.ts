// splade-lab itself in the peers bench: the head-only trainer (head-only) or the full trainer (tiny-encoder).
import type { GpuContext } from '../../src/gpu/context.ts';
import { GpuModel } from '../../src/model/gpu-model.ts';
import { loadParameters } from '../../src/model/weights.ts';
import { HeadOnlyTrainer } from '../../src/train/splade/head-only-trainer.ts';
import { SpladeTrainer } from '../../src/train/splade/trainer.ts';
import { type TrainingRecipe } from '../../src/contract/training/recipe.ts';
import type { PeerStepper } from './peer-system.ts';
import { tinyEncoderCheckpoint, type PeerHyper, type PeerProblem } from './problem.ts';

/** `acquire` gives the GPU context: Dawn in Node, the page's navigator.gpu in Chromium. */
export async function spladeLabPeer(problem: PeerProblem, acquire: () => Promise<GpuContext>): Promise<PeerStepper> {
  const ctx = await acquire();
  const { vendor, architecture, description } = ctx.adapter;
  const step = problem.setting === 'head-only' ? headOnlyStep(ctx, problem) : fullStep(ctx, problem);
  return {
    adapter: `splade-lab on ${[vendor, architecture, description].filter(Boolean).join(' ')}`,
    step,
    onCpu: ctx.onCpu,
    gpuBytes: () => ctx.allocatedBytes,
    dispose: () => ctx.destroy(),
  };
}

/** The problem's hyper-parameters as both trainers take them: no warm-up and no FLOPS ramp, so step 1 is the whole loss. */
function recipeSettings(hyper: PeerHyper) {
  return {
    optimizer: { beta1: hyper.beta1, beta2: hyper.beta2, eps: hyper.eps, weightDecay: hyper.weightDecay },
    schedule: { peakLr: hyper.peakLr, totalSteps: hyper.totalSteps, warmupRatio: 0 },
    lambdaQueries: hyper.lambdaQueries,
    lambdaDocuments: hyper.lambdaDocuments,
    tau: hyper.tau,
    flopsRampRatio: 0,
  };
}

function headOnlyStep(ctx: GpuContext, problem: PeerProblem): (t: number) => Promise<number> {
  const { dims, hyper, fixed, trainable } = problem;
  const { B, Tq, Td, d, V } = dims;
  const u32 = (mask: Float32Array | Int32Array) => Uint32Array.from(mask, (m) => (m ? 1 : 0));
  const inputs = {
    hiddenQueries: ctx.tensor('hidden queries', [B, Tq, d], 'f32', fixed.hiddenQueries.data),
    maskQueries: ctx.tensor('mask queries', [B, Tq], 'u32', u32(fixed.maskQueries.data)),
    hiddenDocuments: ctx.tensor('hidden documents', [2 * B, Td, d], 'f32', fixed.hiddenDocuments.data),
    maskDocuments: ctx.tensor('mask documents', [2 * B, Td], 'u32', u32(fixed.maskDocuments.data)),
    weight: ctx.tensor('decoder weight', [V, d], 'f32', trainable.weight.data),
    bias: ctx.tensor('decoder bias', [V], 'f32', trainable.bias.data),
  };
  const trainer = new HeadOnlyTrainer(ctx, { B, Tq, Td, d, V }, inputs, recipeSettings(hyper));
  return async () => (await trainer.step(true))!.total;
}

function fullStep(ctx: GpuContext, problem: PeerProblem): (t: number) => Promise<number> {
  const { dims, hyper, fixed } = problem;
  const { checkpoint, config } = tinyEncoderCheckpoint(dims, problem.seed);
  const model = GpuModel.upload(ctx, config, loadParameters(config, checkpoint.tensors));
  const recipe: TrainingRecipe = {
    batchSize: dims.B,
    queryLength: dims.Tq,
    documentLength: dims.Td,
    ...recipeSettings(hyper),
    dropout: 0,
  };
  const trainer = new SpladeTrainer(ctx, model, recipe);
  const mask = (a: Float32Array | Int32Array) => Uint8Array.from(a, (m) => (m ? 1 : 0));
  const batch = {
    queryIds: fixed.queryIds.data as Int32Array,
    queryMask: mask(fixed.maskQueries.data),
    documentIds: fixed.documentIds.data as Int32Array,
    documentMask: mask(fixed.maskDocuments.data),
  };
  return async () => (await trainer.step([batch], true))!.total;
}

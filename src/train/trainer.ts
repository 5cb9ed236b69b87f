// Full SPLADE fine-tuning on the GPU (encoder and head): one step = one command encoder, the paper's recipe.
import type { GpuContext } from '../gpu/context.ts';
import { AdamW, type AdamWState } from '../kernels/adamw.ts';
import { FiniteMonitor, type HealthReport } from '../kernels/finite-check.ts';
import type { AdamWHyper } from '../kernels/reference/adamw.ts';
import { GpuEncoderPass } from '../model/gpu-encoder.ts';
import type { GpuModel } from '../model/gpu-model.ts';
import type { StepLosses } from './head-only-trainer.ts';
import { flopsWeight, learningRate, type LinearSchedule } from './schedule.ts';
import { LOSS_PART_NAMES, SpladeObjective } from './splade-objective.ts';

export interface TrainingRecipe {
  /** Triplets per step. */
  batchSize: number;
  /** Padded lengths of queries and documents. */
  queryLength: number;
  documentLength: number;
  optimizer: Omit<AdamWHyper, 'lr'>;
  schedule: LinearSchedule;
  lambdaQueries: number;
  lambdaDocuments: number;
  tau: number;
  /** 'file': triplets in file order every epoch; absent (the default): a seeded shuffle per epoch. */
  dataOrder?: 'file';
}

/**
 * The paper's AdamW settings: transformers' Trainer defaults (PAPER.md), whose weight decay is 0.0 (when set, it skips
 * biases and LayerNorm parameters, as AdamW here does).
 */
export const PAPER_ADAMW: TrainingRecipe['optimizer'] = { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0 };

/** What a smaller run (a laptop, a test) changes of the paper's recipe. */
export interface RecipeOverrides {
  queryLength?: number;
  documentLength?: number;
  peakLr?: number;
}

/** The paper's recipe (PAPER.md), for a given number of steps and batch size, with optional smaller lengths or lr. */
export function paperRecipe(totalSteps: number, batchSize = 64, overrides: RecipeOverrides = {}): TrainingRecipe {
  return {
    batchSize,
    queryLength: overrides.queryLength ?? 256,
    documentLength: overrides.documentLength ?? 256,
    optimizer: PAPER_ADAMW,
    schedule: { peakLr: overrides.peakLr ?? 1e-4, totalSteps, warmupRatio: 0.1 },
    lambdaQueries: 5e-2,
    lambdaDocuments: 3e-3,
    tau: 1,
  };
}

/** One batch of tokenized triplets: B queries, then 2B documents (B positives, then B negatives). */
export interface TripletBatch {
  queryIds: Int32Array; // (B, Tq)
  queryMask: Uint8Array; // (B, Tq)
  documentIds: Int32Array; // (2B, Td)
  documentMask: Uint8Array; // (2B, Td)
}

/** The optimiser's state with each parameter's moments under its internal name (layout.ts), for checkpoints. */
export interface OptimizerState {
  step: number;
  moments: Map<string, AdamWState['moments'][number]>;
}

export class SpladeTrainer {
  readonly queries: GpuEncoderPass;
  readonly documents: GpuEncoderPass;
  readonly objective: SpladeObjective;
  private readonly optimizer: AdamW;
  /** Sticky GPU flags: loss parts, every gradient and every updated parameter, checked at each step. */
  private readonly health: FiniteMonitor;
  /** Names of the optimised parameters, in the optimiser's order. */
  private readonly parameterNames: string[];
  /** Steps taken so far. */
  t = 0;

  constructor(private readonly ctx: GpuContext, readonly model: GpuModel, readonly recipe: TrainingRecipe) {
    const { batchSize: B, queryLength: Tq, documentLength: Td } = recipe;
    const { hidden: d, vocabSize: V } = model.config;
    this.queries = new GpuEncoderPass(model, B, Tq, 'queries');
    this.documents = new GpuEncoderPass(model, 2 * B, Td, 'documents');
    this.objective = new SpladeObjective(ctx, { B, Tq, Td, d, V }, recipe.tau);
    const parameters = model.parameters();
    this.parameterNames = parameters.map((p) => p.name);
    this.optimizer = new AdamW(ctx, parameters);
    this.health = new FiniteMonitor(ctx, [
      { name: 'loss parts', tensor: this.objective.losses, elements: LOSS_PART_NAMES },
      ...parameters.map((p) => ({ name: `gradient of ${p.name}`, tensor: p.dparam })),
      ...parameters.map((p) => ({ name: `parameter ${p.name} after the update`, tensor: p.param })),
    ], 'training health');
  }

  /**
   * Whether any step so far left a loss part, a gradient or an updated parameter Inf or NaN, which parts, and the
   * first such step: one readback of a few words, cheap enough for every report and before every checkpoint. The
   * flags are sticky: a bad step between two reports is still seen. (A NaN logit looks like 0 to the head's ReLU,
   * so the losses alone can stay finite while the parameters are already NaN.)
   */
  readHealth(): Promise<HealthReport> {
    return this.health.read();
  }

  /** Reads the optimiser's step count and moments back, keyed by parameter name. */
  async readOptimizerState(): Promise<OptimizerState> {
    const { step, moments } = await this.optimizer.readState();
    return { step, moments: new Map(moments.map((moment, i) => [this.parameterNames[i], moment])) };
  }

  /** Continues a run: the step t (schedules) and the optimiser's state; the parameters are the model's own. */
  restoreState(t: number, optimizer: OptimizerState): void {
    if (!Number.isInteger(t) || t < 0) throw new Error(`trainer step ${t} is not a non-negative integer`);
    const missing = this.parameterNames.filter((name) => !optimizer.moments.has(name));
    const extra = [...optimizer.moments.keys()].filter((name) => !this.parameterNames.includes(name));
    if (missing.length || extra.length) {
      throw new Error(
        `optimiser state does not fit this model: ` +
          [missing.length ? `no moments for ${missing.join(', ')}` : '', extra.length ? `moments of unknown parameters ${extra.join(', ')}` : '']
            .filter(Boolean)
            .join('; '),
      );
    }
    this.optimizer.loadState({ step: optimizer.step, moments: this.parameterNames.map((name) => optimizer.moments.get(name)!) });
    this.t = t;
  }

  /** Uploads a batch, records forward, losses, backward and the update in one encoder; reads losses if asked. */
  async step(batch: TripletBatch, readLosses: boolean): Promise<StepLosses | undefined> {
    const { recipe, model } = this;
    this.queries.setInputs(batch.queryIds, batch.queryMask);
    this.documents.setInputs(batch.documentIds, batch.documentMask);
    const total = recipe.schedule.totalSteps;
    const lambdaQ = flopsWeight(recipe.lambdaQueries, this.t, total);
    const lambdaD = flopsWeight(recipe.lambdaDocuments, this.t, total);
    this.objective.setLambdas(lambdaQ, lambdaD);
    const encoder = this.ctx.encoder(`training step ${this.t}`);
    model.zeroGrads(encoder);
    this.queries.forward(encoder);
    this.documents.forward(encoder);
    this.objective.record(
      encoder,
      {
        hiddenQueries: this.queries.headHidden,
        maskQueries: this.queries.mask,
        hiddenDocuments: this.documents.headHidden,
        maskDocuments: this.documents.mask,
        weight: model.decoderWeight,
        bias: model.decoderBias,
      },
      {
        dweight: model.ddecoderWeight,
        dbias: model.ddecoderBias,
        dhiddenQueries: this.queries.dheadHidden,
        dhiddenDocuments: this.documents.dheadHidden,
      },
    );
    this.queries.backward(encoder);
    this.documents.backward(encoder);
    this.optimizer.record(encoder, { ...recipe.optimizer, lr: learningRate(recipe.schedule, this.t) });
    this.health.record(encoder, this.t);
    this.ctx.submit(encoder);
    const step = this.t++;
    if (!readLosses) return undefined;
    const l = await this.objective.readLosses();
    return { step, ...l, total: l.rank + lambdaQ * l.flopsQueries + lambdaD * l.flopsDocuments };
  }
}

// The hand-off, once for the page and the CLI: a ready sentence-transformers v5 project (train.py, check_step1.py,
// the triplets, settings, pinned requirements, README) that trains the same SPLADE model on GPUs with splade-lab's
// recipe, and splade-lab's first batch with its step-0 loss parts (expected_step1.json) to check the project against.
import type { GpuContext } from '../../gpu/context.ts';
import { GpuModel } from '../../model/gpu-model.ts';
import { divideModelHead } from '../../model/rescale.ts';
import { TripletBatches } from '../../train/splade/batches.ts';
import { SpladeTrainer, type TripletBatch } from '../../train/splade/trainer.ts';
import type { TrainingData } from '../../train/splade/training-loop.ts';
import { crc32 } from '../../util/crc32.ts';
import { NonFiniteError } from '../../util/finite.ts';
import { launchSh, projectReadme, requirementsTxt, type ProjectSummary } from './project-docs.ts';
import checkStep1Py from './check_step1.py?raw';
import spladeDataPy from './splade_data.py?raw';
import trainPy from './train.py?raw';
import { InvalidRequestError, checkRange } from '../../contract/limits.ts';
import type { OpenedModel } from '../model/open-model.ts';
import { planTraining, trainedTableField, type TrainPlan } from '../../contract/training/training-request.ts';
import { checkLengthsFit } from '../../contract/model/max-tokens.ts';
import { backboneFiles } from '../model/save-model.ts';
import { checkTeacherLabels } from '../../contract/training/teacher-labels.ts';
import { idfJson } from '../../retrieval/idf-table.ts';
import { queryWeightsCrc, trainingDataIdf } from '../training/query-weights.ts';
import { specialTokenIds } from '../training/special-tokens.ts';

/** The static query table of an inference-free hand-off, as OpenSearch's idf.json (token -> weight). */
const IDF_FILE = 'idf.json';
import { tripletFormat } from '../training/training-data.ts';
import { HandoffRequest } from '../../contract/handoff/handoff.ts';
import { queryTableLr } from '../../contract/training/recipe.ts';

/** The paper's sizes: 64 triplets per GPU, 256 tokens; one GPU unless told (the paper used 8). */
export const HANDOFF_DEFAULTS = { gpus: 1, batchSize: 64, queryLength: 256, documentLength: 256 } as const;

const HANDOFF_LIMITS = {
  gpus: { min: 1, max: 4096, integer: true },
  /** transformers reads max_steps 0 as "use the epochs": a hand-off run has at least one step. */
  steps: { min: 1, max: 10_000_000, integer: true },
} as const;

/** A checked hand-off request: the training plan (per-GPU batch) and the run's length. */
export interface HandoffPlan {
  plan: TrainPlan;
  gpus: number;
  steps: number | null;
  epochs: number | null;
}

/** Checks a hand-off request with training's checks (limits.ts through planTraining), for `triplets` triplets. */
export function planHandoff(request: HandoffRequest, triplets: number): HandoffPlan {
  const gpus = checkRange(request.gpus, HANDOFF_LIMITS.gpus, 'The number of GPUs');
  if (request.steps !== undefined) checkRange(request.steps, HANDOFF_LIMITS.steps, 'Steps');
  const plan = planTraining({ ...request, checkpointEvery: 1, reportEvery: 1, resume: false }, triplets);
  if (plan.recipe.batchSize > triplets) {
    throw new InvalidRequestError(`The batch size ${plan.recipe.batchSize} is larger than the ${triplets} triplets of the data`);
  }
  return { plan, gpus, steps: request.steps ?? null, epochs: request.steps === undefined ? (request.epochs ?? 1) : null };
}

/** expected_step1.json: splade-lab's first batch and its unweighted loss parts at step 0, head divided by k. */
export interface ExpectedStep1 {
  k: number;
  /** Token ids with their special tokens, unpadded, truncated to the query or document length. */
  batch: { queries: number[][]; positives: number[][]; negatives: number[][] };
  loss: { rank: number; flopsQueries: number; flopsDocuments: number };
  /** Distillation: the batch's teacher labels, one row per triplet (margins, or the scores [pos, neg]). */
  teacher?: number[][];
  /** The batch's triplets: 0-based indices into the file's triplets (blank lines and a header not counted). */
  triplets: number[];
  seed: number;
  batchSize: number;
  queryLength: number;
  documentLength: number;
  computedBy: string;
}

/** A (rows, width) matrix as rows of numbers. */
function rowsOf(matrix: Float32Array, rows: number): number[][] {
  const width = matrix.length / rows;
  return Array.from({ length: rows }, (_, r) => Array.from(matrix.subarray(r * width, (r + 1) * width)));
}

/** Rows [first, first + count) of (rows, T) ids, each cut at its mask (right padding). */
function unpadded(ids: Int32Array, mask: Uint8Array, T: number, first: number, count: number): number[][] {
  return Array.from({ length: count }, (_, r) => {
    const row = first + r;
    const out: number[] = [];
    for (let t = 0; t < T && mask[row * T + t]; t++) out.push(ids[row * T + t]);
    return out;
  });
}

/** The three loss parts of one step of splade-lab's GPU trainer at step 0 (fp32), on a copy of the model. */
async function stepZeroLosses(
  ctx: GpuContext,
  model: OpenedModel,
  plan: TrainPlan,
  batch: TripletBatch,
  queryWeights?: Float32Array,
): Promise<ExpectedStep1['loss']> {
  const owned = await ctx.ownedAsync(async () => {
    const gpuModel = GpuModel.upload(ctx, model.config, model.params);
    await divideModelHead(ctx, gpuModel, plan.k);
    // the Python check computes its losses without dropout (eval mode): so does this step
    const { dropout: _dropout, ...withoutDropout } = plan.recipe;
    return new SpladeTrainer(ctx, gpuModel, withoutDropout, 0, queryWeights, specialTokenIds(model.tokenizer)).step(
      [batch],
      true,
    );
  });
  try {
    const losses = owned.value!;
    const loss = { rank: losses.rank, flopsQueries: losses.flopsQueries, flopsDocuments: losses.flopsDocuments };
    const bad = Object.entries(loss).filter(([, value]) => !Number.isFinite(value));
    if (bad.length) {
      throw new NonFiniteError(
        `the step-0 loss of the first batch is not finite (${bad.map(([part, value]) => `${part} ${value}`).join(', ')}) under k = ${plan.k}: try a larger k`,
      );
    }
    return loss;
  } finally {
    owned.destroy();
  }
}

/** splade-lab's first training batch for the plan (TripletBatches with its seed) and its step-0 loss parts on the GPU. */
export async function expectedFirstStep(
  ctx: GpuContext,
  model: OpenedModel,
  data: TrainingData,
  plan: TrainPlan,
  queryWeights?: Float32Array,
): Promise<ExpectedStep1> {
  const { recipe } = plan;
  checkLengthsFit(model.config, { 'The query length': recipe.queryLength, 'The document length': recipe.documentLength });
  if (data.source.negatives !== 1)
    throw new InvalidRequestError(`the hand-off takes one negative per row; this data has ${data.source.negatives}`);
  const first = await new TripletBatches(data.source, model.tokenizer, recipe, plan.seed).next();
  const { batch } = first;
  const B = recipe.batchSize;
  return {
    k: plan.k,
    batch: {
      queries: unpadded(batch.queryIds, batch.queryMask, recipe.queryLength, 0, B),
      positives: unpadded(batch.documentIds, batch.documentMask, recipe.documentLength, 0, B),
      negatives: unpadded(batch.documentIds, batch.documentMask, recipe.documentLength, B, B),
    },
    loss: await stepZeroLosses(ctx, model, plan, batch, queryWeights),
    ...(batch.teacher ? { teacher: rowsOf(batch.teacher, B) } : {}),
    triplets: first.triplets,
    seed: plan.seed,
    batchSize: B,
    queryLength: recipe.queryLength,
    documentLength: recipe.documentLength,
    computedBy: 'splade-lab GPU trainer, step 0 (fp32), unweighted parts; checked against its float64 reference',
  };
}

export interface HandoffOptions {
  model: OpenedModel;
  data: TrainingData;
  /** The triplet file as read (its CRC-32 must be the data's): copied into the project, so the GPU machine trains on it. */
  tripletBytes: Uint8Array;
  request: HandoffRequest;
}

/** A file name safe in any file system and shell: the data file's own name, odd characters replaced. */
function safeFileName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[.]+/, '');
  return safe === '' ? 'triplets.tsv' : safe;
}

/** Pretty JSON with arrays of numbers (token ids) kept on one line each. */
function json(value: unknown): string {
  const text = JSON.stringify(value, null, 2).replace(
    /\[\s*(-?[\d.e+-]+(?:,\s*-?[\d.e+-]+)*)\s*\]/g,
    (_, inner: string) => `[${inner.split(/,\s*/).join(', ')}]`,
  );
  return text + '\n';
}

/** The project's files by path (a folder in Node, a zip in the page): the same for every caller. */
export async function handoffProject(ctx: GpuContext, options: HandoffOptions): Promise<Map<string, Uint8Array>> {
  const { model, data, request } = options;
  const fingerprint = data.fingerprint;
  if (crc32(options.tripletBytes) !== fingerprint.crc32) {
    throw new Error(`the triplet bytes given for ${fingerprint.name} are not the file that was read (CRC-32 differs)`);
  }
  if (tripletFormat(options.tripletBytes, fingerprint.name) !== 'tsv') {
    throw new InvalidRequestError(
      `The hand-off project reads TSV triplets (query, positive, negative per line); ${fingerprint.name} is JSON Lines: write it as TSV first`,
    );
  }
  const handoff = planHandoff(request, data.source.count);
  const { plan } = handoff;
  const loss = plan.recipe.loss ?? 'contrastive';
  const teacher = checkTeacherLabels(loss, data.source.negatives, data.labels, fingerprint.name);
  if (teacher.error) throw new InvalidRequestError(teacher.error);
  // inference-free: the static query table as training makes it (IDF of the training documents), shipped as idf.json
  const queryTable = request.inferenceFree ? await trainingDataIdf(data, model.tokenizer) : null;
  if (queryTable)
    plan.recipe = {
      ...plan.recipe,
      inferenceFree: {
        queryWeights: queryTable.source,
        crc32: queryWeightsCrc(queryTable),
        ...trainedTableField(request, plan.recipe.schedule.peakLr),
      },
    };
  const { recipe } = plan;
  const expected = await expectedFirstStep(ctx, model, data, plan, queryTable?.weights);

  const ref = model.ref;
  const adamw = recipe.optimizer;
  if (adamw.kind === 'sgd') throw new InvalidRequestError("the hand-off trains with AdamW, the paper's optimiser");
  const hub = ref.kind === 'hub' && !ref.hubUrl && ref.repoType !== 'dataset' ? ref : null;
  const dataPath = `data/${safeFileName(fingerprint.name)}`;
  const settings = {
    created_by: 'splade-lab handoff',
    backbone: {
      name: model.name,
      hub_id: hub ? hub.id : null,
      revision: hub?.revision ?? null,
      path: hub ? null : 'backbone',
      architecture: model.config.hfArchitecture,
      tied_head: model.config.tieWordEmbeddings,
    },
    k: plan.k,
    gpus: handoff.gpus,
    seed: plan.seed,
    recipe: {
      batch_per_gpu: recipe.batchSize,
      query_length: recipe.queryLength,
      document_length: recipe.documentLength,
      steps: handoff.steps,
      epochs: handoff.epochs,
      peak_lr: recipe.schedule.peakLr,
      warmup_ratio: recipe.schedule.warmupRatio,
      schedule: 'linear',
      lambda_q: recipe.lambdaQueries,
      lambda_d: recipe.lambdaDocuments,
      lambda_ramp: { shape: 'quadratic', fraction: 1 / 3 },
      tau: recipe.tau,
      loss,
      inference_free: queryTable
        ? {
            idf: IDF_FILE,
            source: queryTable.source,
            trained: recipe.inferenceFree?.trained !== undefined,
            query_l1: recipe.inferenceFree?.trained?.l1 ?? 0,
            query_table_lr: queryTableLr(recipe) ?? null,
          }
        : null,
      optimizer: { name: 'AdamW', beta1: adamw.beta1, beta2: adamw.beta2, eps: adamw.eps, weight_decay: adamw.weightDecay },
      max_grad_norm: recipe.maxGradNorm ?? 0,
      dropout: recipe.dropout ?? 0,
      precision: 'bf16 mixed (train.py --fp32: fp32)',
    },
    data: { file: fingerprint.name, path: dataPath, triplets: fingerprint.triplets, crc32: fingerprint.crc32 >>> 0 },
  };
  const summary: ProjectSummary = {
    backbone: {
      name: model.name,
      hubId: settings.backbone.hub_id,
      copied: !hub,
      tiedHead: model.config.tieWordEmbeddings,
      architecture: model.config.hfArchitecture,
    },
    k: plan.k,
    gpus: handoff.gpus,
    batchSize: recipe.batchSize,
    queryLength: recipe.queryLength,
    documentLength: recipe.documentLength,
    steps: handoff.steps,
    epochs: handoff.epochs,
    peakLr: recipe.schedule.peakLr,
    weightDecay: recipe.optimizer.weightDecay,
    maxGradNorm: recipe.maxGradNorm ?? 0,
    dropout: recipe.dropout ?? 0,
    lambdaQueries: recipe.lambdaQueries,
    lambdaDocuments: recipe.lambdaDocuments,
    seed: plan.seed,
    data: settings.data,
    loss: expected.loss,
  };

  const text = new TextEncoder();
  const files = new Map<string, Uint8Array>();
  files.set('README.md', text.encode(projectReadme(summary)));
  files.set('requirements.txt', text.encode(requirementsTxt()));
  files.set('launch.sh', text.encode(launchSh(handoff.gpus)));
  files.set('splade_lab.json', text.encode(json(settings)));
  files.set('expected_step1.json', text.encode(json(expected)));
  files.set('splade_data.py', text.encode(spladeDataPy));
  files.set('train.py', text.encode(trainPy));
  files.set('check_step1.py', text.encode(checkStep1Py));
  if (queryTable) {
    const special = new Set(specialTokenIds(model.tokenizer));
    const table = idfJson(Float64Array.from(queryTable.weights), (id) => model.tokenizer.idToToken(id), special);
    files.set(IDF_FILE, text.encode(JSON.stringify(table) + '\n'));
  }
  files.set(dataPath, options.tripletBytes);
  if (!hub) for (const [name, bytes] of await backboneFiles(model)) files.set(`backbone/${name}`, bytes);
  return files;
}

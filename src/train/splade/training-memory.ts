// What a training run needs on the GPU, known before it starts: the trainer's buffers listed for the run's batch
// without allocating them (GpuContext.measure), checked against the device's buffer limits and a memory budget; over
// either, the largest batch that fits and the accumulation that keeps the step's triplets.
import type { GpuContext } from '../../gpu/context.ts';
import { GpuLimitError, GpuOutOfMemoryError } from '../../gpu/errors.ts';
import type { GpuModel } from '../../model/gpu-model.ts';
import { formatBytes } from '../../util/format-bytes.ts';
import { microBatches } from '../../contract/training/recipe-facts.ts';
import { SpladeTrainer } from './trainer.ts';
import { type TrainingRecipe } from '../../contract/training/recipe.ts';

export interface TrainingMemory {
  /** Bytes already held on the GPU (the model, its gradients, anything else kept). */
  heldBytes: number;
  /** The trainer's buffers at the run's batch: activations of both passes, the objective, the optimiser's state. */
  trainerBytes: number;
  totalBytes: number;
  /** Growth of the trainer's buffers per triplet of the batch. */
  perTripletBytes: number;
  /** The largest single buffer at the run's batch (it must fit one storage binding). */
  largestBufferBytes: number;
}

/** A run that does not fit: the figures, and the batch (with the accumulation that keeps the step) that would. */
export class TrainingTooLargeError extends Error {
  override name = 'TrainingTooLargeError';
  constructor(
    message: string,
    readonly memory: TrainingMemory,
    /** The largest batch that fits, and micro-batches per step at it (null: not even one triplet fits). */
    readonly fits: { batchSize: number; gradAccum: number } | null,
  ) {
    super(message);
  }
}

/** The bytes of each buffer a trainer of batch `batchSize` would allocate (none is allocated), or null over a limit. */
function trainerSizes(ctx: GpuContext, model: GpuModel, recipe: TrainingRecipe, batchSize: number): number[] | null {
  try {
    // an inference-free trainer's table only shapes host memory: a zero table of the right size measures it
    const table = recipe.inferenceFree ? new Float32Array(model.config.vocabSize) : undefined;
    return ctx.measure(() => new SpladeTrainer(ctx, model, { ...recipe, batchSize }, 0, table));
  } catch (error) {
    if (error instanceof GpuLimitError) return null;
    throw error;
  }
}

const sum = (sizes: number[]) => sizes.reduce((a, b) => a + b, 0);

/** The largest size (a reduce: a split kernel can own more buffers than a spread's arguments may hold). */
const largest = (sizes: number[]) => sizes.reduce((a, b) => Math.max(a, b), 0);

/**
 * Lists the run's buffers on the uploaded model and refuses, before anything of the run is allocated, a batch with a
 * buffer over the device's limits or a total over `budgetBytes` (when known).
 */
export function checkTrainingFits(
  ctx: GpuContext,
  model: GpuModel,
  recipe: TrainingRecipe,
  budgetBytes?: number,
): TrainingMemory {
  const heldBytes = ctx.allocatedBytes;
  const B = recipe.batchSize;
  checkSequencesFit(ctx, recipe);
  const sizes = trainerSizes(ctx, model, recipe, B);
  const bufferLimit = Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize);
  const trainerBytes = sizes ? sum(sizes) : NaN;
  const memory: TrainingMemory = {
    heldBytes,
    trainerBytes,
    totalBytes: heldBytes + trainerBytes,
    perTripletBytes: B > 1 ? (trainerBytes - sum(trainerSizes(ctx, model, recipe, 1) ?? [])) / (B - 1) : NaN,
    largestBufferBytes: sizes ? largest(sizes) : NaN,
  };
  if (sizes && (budgetBytes === undefined || memory.totalBytes <= budgetBytes)) return memory;
  const fitsAt = (b: number) => {
    const need = trainerSizes(ctx, model, recipe, b);
    return need !== null && (budgetBytes === undefined || heldBytes + sum(need) <= budgetBytes);
  };
  const why = !sizes
    ? `one of its buffers is over the device's ${formatBytes(bufferLimit)} per buffer`
    : `it needs about ${formatBytes(memory.totalBytes)} on the GPU (${formatBytes(heldBytes)} already held for the model, ${formatBytes(trainerBytes)} for the batch), over the ${formatBytes(budgetBytes!)} allowed`;
  throw tooLarge(`A batch of ${B} does not fit: ${why}.`, memory, recipe, fitsAt);
}

/**
 * A micro-batch encodes its B queries, then its B·(1 + negatives) documents, in one pass, and the kernels take at
 * most the device's workgroups per dimension of sequences at once (65535 on most): rows with very many negatives are
 * refused here, before any buffer, with the batch or the negatives that fit.
 */
function checkSequencesFit(ctx: GpuContext, recipe: TrainingRecipe): void {
  const B = recipe.batchSize;
  const negatives = recipe.negatives ?? 1;
  const documents = B * (1 + negatives);
  const most = ctx.limits.maxComputeWorkgroupsPerDimension;
  if (documents <= most) return;
  const batchFits = Math.floor(most / (1 + negatives));
  const memory = {
    heldBytes: ctx.allocatedBytes,
    trainerBytes: NaN,
    totalBytes: NaN,
    perTripletBytes: NaN,
    largestBufferBytes: NaN,
  };
  const advice =
    batchFits >= 1
      ? `use a batch of at most ${batchFits} (--batch ${batchFits} --grad-accum ${Math.ceil((B * microBatches(recipe)) / batchFits)} keeps the step's rows), or fewer negatives per row`
      : `keep at most ${most - 1} negatives per row (the file's rows have ${negatives})`;
  throw new TrainingTooLargeError(
    `A batch of ${B} row${B === 1 ? '' : 's'} with ${negatives} negatives each is ${documents} documents per micro-batch, over the ${most} ` +
      `sequences this device's kernels encode in one pass: ${advice}.`,
    memory,
    batchFits >= 1 ? { batchSize: batchFits, gradAccum: Math.ceil((B * microBatches(recipe)) / batchFits) } : null,
  );
}

/**
 * Builds the trainer, turning an allocation the device refused into a TrainingTooLargeError: the memory held when it
 * failed stands for what the device has, and the largest batch whose trainer fits in it is advised.
 */
export async function buildTrainer(
  ctx: GpuContext,
  build: () => SpladeTrainer,
  model: GpuModel,
  recipe: TrainingRecipe,
): Promise<SpladeTrainer> {
  const held = ctx.allocatedBytes;
  try {
    return await ctx.checkingMemory(`the trainer (batch ${recipe.batchSize})`, build);
  } catch (error) {
    if (!(error instanceof GpuOutOfMemoryError)) throw error;
    const available = error.bytesHeld;
    const sizes = trainerSizes(ctx, model, recipe, recipe.batchSize) ?? [];
    const memory = {
      heldBytes: held,
      trainerBytes: sum(sizes),
      totalBytes: held + sum(sizes),
      perTripletBytes: NaN,
      largestBufferBytes: largest(sizes),
    };
    throw tooLarge(
      `The GPU ran out of memory for a batch of ${recipe.batchSize} (about ${formatBytes(memory.totalBytes)} needed; it failed at ${formatBytes(available)} held).`,
      memory,
      recipe,
      (b) => held + sum(trainerSizes(ctx, model, recipe, b) ?? [Infinity]) <= 0.9 * available,
    );
  }
}

/** The error with the advice: the largest batch that fits, and the accumulation that keeps at least the step's triplets. */
function tooLarge(
  problem: string,
  memory: TrainingMemory,
  recipe: TrainingRecipe,
  fitsAt: (b: number) => boolean,
): TrainingTooLargeError {
  let best = 0;
  for (let lo = 1, hi = recipe.batchSize - 1; lo <= hi;) {
    const mid = Math.floor((lo + hi) / 2);
    if (fitsAt(mid)) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (best === 0) {
    return new TrainingTooLargeError(
      `${problem} Not even a batch of 1 fits: use shorter query or document lengths, or a smaller model.`,
      memory,
      null,
    );
  }
  const perStep = recipe.batchSize * microBatches(recipe);
  const gradAccum = Math.ceil(perStep / best);
  return new TrainingTooLargeError(
    `${problem} A batch of ${best} fits: use batch ${best} with ${gradAccum} micro-batches per step (--batch ${best} --grad-accum ${gradAccum}) to keep ` +
      `${best * gradAccum} triplets per step (each micro-batch then scores its queries against its own ${best} positives and negatives).`,
    memory,
    { batchSize: best, gradAccum },
  );
}

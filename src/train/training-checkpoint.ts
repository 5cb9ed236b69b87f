// Training checkpoints: everything a resumed run needs (parameters, AdamW moments and step, the trainer's step, the data
// position, recipe, k, seed), as two safetensors files and state.json, in a store where each checkpoint appears whole.
import type { GpuContext } from '../gpu/context.ts';
import type { HfConfig } from '../io/formats/model-folder.ts';
import type { HostTensor } from '../io/host-tensor.ts';
import { readSafetensors, writeSafetensors } from '../io/formats/safetensors.ts';
import { crc32 } from '../util/crc32.ts';
import { NonFiniteError, findNonFinite } from '../util/finite.ts';
import { parseModelConfig } from '../model/config.ts';
import { GpuModel } from '../model/gpu-model.ts';
import { type DataPosition, DataFingerprint } from '../contract/training/training-report.ts';
import { optimizerName } from '../contract/training/optimizer-settings.ts';
import { SpladeTrainer } from './splade/trainer.ts';
import type { OptimizerState } from './parameter-update.ts';
import type { StepRecipe, TrainingRecipe } from '../contract/training/recipe.ts';
import type { StepTrainer } from './step-trainer.ts';
import { CHECKPOINT_FORMAT } from '../contract/experiments/stored-records.ts';

/** Where checkpoints live: a folder in Node, IndexedDB in the page. */
export interface CheckpointStore {
  /** For messages: "folder /runs/a/checkpoint". */
  readonly label: string;
  /** Names of the checkpoints whose write completed (an interrupted write is never listed). */
  list(): Promise<string[]>;
  /** One file of a checkpoint, or null when absent. */
  read(name: string, file: string): Promise<Uint8Array | null>;
  /** Writes a checkpoint's files atomically: all of them appear (replacing any checkpoint of that name) or none. */
  write(name: string, files: Map<string, Uint8Array>): Promise<void>;
  remove(name: string): Promise<void>;
}

/** A run's whole state; `R`: its recipe (SPLADE's, or a masked-LM one, which carries `objective: 'mlm'`). */
export interface TrainingState<R extends StepRecipe = TrainingRecipe> {
  /** config.json of the backbone, as read. */
  config: HfConfig;
  /** Every parameter (internal names, layout.ts), fp32. */
  params: Map<string, HostTensor>;
  optimizer: OptimizerState;
  /** Steps taken. */
  t: number;
  /** Where the next batch starts. */
  position: DataPosition;
  recipe: R;
  /** The head was divided by k before step 0. */
  k: number;
  seed: number;
  data: DataFingerprint;
  /** Wall time of the run's steps so far (checkpoint writes left out); absent in checkpoints of older versions. */
  trainingMs?: number;
}

const CHECKPOINT_VERSION = 1;

const STATE = 'state.json';

const MODEL = 'model.safetensors';

const OPTIMIZER = 'optimizer.safetensors';

/** A checkpoint that cannot be used: names the file and what is wrong with it. */
export class CheckpointCorruptError extends Error {
  override name = 'CheckpointCorruptError';
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

/** Checkpoint names sort by step: step-00000050. */
function checkpointName(t: number): string {
  return `step-${String(t).padStart(8, '0')}`;
}

function stepOf(name: string): number | null {
  const match = /^step-(\d+)$/.exec(name);
  return match ? Number(match[1]) : null;
}

/** Complete checkpoints of a store, oldest first (names that are not step-N are left alone). */
export async function listCheckpoints(store: CheckpointStore): Promise<{ name: string; step: number }[]> {
  return (await store.list())
    .map((name) => ({ name, step: stepOf(name) }))
    .filter((c): c is { name: string; step: number } => c.step !== null)
    .sort((a, b) => a.step - b.step);
}

/** Reads a trainer's whole state back from the GPU (one readback per tensor; checkpoints only). */
export async function captureTrainingState<R extends StepRecipe>(
  trainer: StepTrainer<unknown, unknown> & { readonly recipe: R },
  run: Pick<TrainingState, 'config' | 'position' | 'k' | 'seed' | 'data' | 'trainingMs'>,
): Promise<TrainingState<R>> {
  return {
    ...run,
    params: new Map([...(await trainer.model.download()), ...((await trainer.downloadExtras?.()) ?? [])]),
    optimizer: await trainer.readOptimizerState(),
    t: trainer.t,
    recipe: trainer.recipe,
  };
}

/** A checkpoint's model, uploaded (what a resumed trainer is built on). */
export function uploadCheckpointModel(ctx: GpuContext, state: TrainingState<StepRecipe>, where = 'checkpoint'): GpuModel {
  const config = parseModelConfig(state.config, { source: `${where}/${STATE} config` });
  return GpuModel.upload(ctx, config, state.params);
}

/** A fresh model and trainer from a checkpoint, as a new process would build them. */
export function restoreTrainer(ctx: GpuContext, state: TrainingState, where = 'checkpoint'): SpladeTrainer {
  const trainer = new SpladeTrainer(ctx, uploadCheckpointModel(ctx, state, where), state.recipe, state.seed);
  trainer.restoreState(state.t, state.optimizer);
  return trainer;
}

/** The files of a checkpoint: model.safetensors, optimizer.safetensors, and state.json (sizes and CRC-32 of both). */
function encodeCheckpoint(state: TrainingState<StepRecipe>): Map<string, Uint8Array> {
  const moments: [string, HostTensor][] = [];
  for (const [name, { m, v }] of state.optimizer.moments) {
    const shape = state.params.get(name)?.shape ?? [m.length];
    moments.push([`${name}.m`, { shape: [...shape], data: m }], [`${name}.v`, { shape: [...shape], data: v }]);
  }
  const files = new Map<string, Uint8Array>([
    [MODEL, writeSafetensors(state.params)],
    [
      OPTIMIZER,
      writeSafetensors(moments, { optimizer: optimizerName(state.recipe.optimizer), step: String(state.optimizer.step) }),
    ],
  ]);
  const manifest = Object.fromEntries([...files].map(([name, bytes]) => [name, { bytes: bytes.length, crc32: crc32(bytes) }]));
  const json = {
    format: CHECKPOINT_FORMAT,
    version: CHECKPOINT_VERSION,
    t: state.t,
    optimizerStep: state.optimizer.step,
    position: state.position,
    recipe: state.recipe,
    k: state.k,
    seed: state.seed,
    data: state.data,
    trainingMs: state.trainingMs,
    config: state.config,
    files: manifest,
  };
  files.set(STATE, new TextEncoder().encode(JSON.stringify(json, null, 2) + '\n'));
  return files;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks that every path holds a finite number (the shape of state.json, without a schema library). */
function expectNumbers(file: string, root: Json, paths: string[]): void {
  for (const path of paths) {
    const value = path.split('.').reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), root);
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new CheckpointCorruptError(file, `"${path}" is ${JSON.stringify(value)}, expected a number`);
  }
}

const STATE_NUMBERS = [
  't',
  'optimizerStep',
  'position.epoch',
  'position.index',
  'k',
  'seed',
  'data.triplets',
  'data.crc32',
  'recipe.batchSize',
  'recipe.optimizer.weightDecay',
  'recipe.schedule.peakLr',
  'recipe.schedule.totalSteps',
  'recipe.schedule.warmupRatio',
];

/** The numbers of a SPLADE recipe, and of a masked-LM one (`objective: 'mlm'`). */
const SPLADE_NUMBERS = [
  'recipe.queryLength',
  'recipe.documentLength',
  'recipe.lambdaQueries',
  'recipe.lambdaDocuments',
  'recipe.tau',
];
const MLM_NUMBERS = ['recipe.maxLength', 'recipe.mlmProbability'];

/** The numbers an AdamW recipe adds (SGD has none of them). */
const ADAMW_NUMBERS = ['recipe.optimizer.beta1', 'recipe.optimizer.beta2', 'recipe.optimizer.eps'];

/** Recipe fields added later: absent in older checkpoints, numbers when present. */
const OPTIONAL_NUMBERS = ['recipe.gradAccum', 'recipe.maxGradNorm', 'recipe.flopsRampRatio'];

function parseState(file: string, bytes: Uint8Array): Json {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    throw new CheckpointCorruptError(
      file,
      `not valid JSON (${error instanceof Error ? error.message : String(error)}): the checkpoint is damaged`,
    );
  }
  if (!isObject(json) || json.format !== CHECKPOINT_FORMAT)
    throw new CheckpointCorruptError(file, `not a ${CHECKPOINT_FORMAT} state file`);
  if (json.version !== CHECKPOINT_VERSION)
    throw new CheckpointCorruptError(
      file,
      `format version ${JSON.stringify(json.version)}, this splade-lab reads version ${CHECKPOINT_VERSION}`,
    );
  expectNumbers(file, json, STATE_NUMBERS);
  const recipe = json.recipe as Json;
  if (recipe.objective !== undefined && recipe.objective !== 'mlm')
    throw new CheckpointCorruptError(file, `"recipe.objective" is ${JSON.stringify(recipe.objective)}, expected "mlm" or none`);
  expectNumbers(file, json, recipe.objective === 'mlm' ? MLM_NUMBERS : SPLADE_NUMBERS);
  const optimizer = (recipe.optimizer as Json).kind;
  if (optimizer !== undefined && optimizer !== 'adamw' && optimizer !== 'sgd') {
    throw new CheckpointCorruptError(file, `"recipe.optimizer.kind" is ${JSON.stringify(optimizer)}, expected "adamw" or "sgd"`);
  }
  if (optimizer !== 'sgd') expectNumbers(file, json, ADAMW_NUMBERS);
  expectNumbers(
    file,
    json,
    OPTIONAL_NUMBERS.filter((path) => recipe[path.slice('recipe.'.length)] !== undefined),
  );
  if (json.trainingMs !== undefined) expectNumbers(file, json, ['trainingMs']);
  if (recipe.flopsOver !== undefined && recipe.flopsOver !== 'step')
    throw new CheckpointCorruptError(file, `"recipe.flopsOver" is ${JSON.stringify(recipe.flopsOver)}, expected "step"`);
  const dropout = recipe.dropout;
  if (dropout !== undefined && dropout !== 'config' && !(typeof dropout === 'number' && dropout >= 0 && dropout < 1)) {
    throw new CheckpointCorruptError(
      file,
      `"recipe.dropout" is ${JSON.stringify(dropout)}, expected "config" or a probability below 1`,
    );
  }
  if (!isObject(json.config)) throw new CheckpointCorruptError(file, '"config" is not the backbone\'s config.json object');
  if (!isObject(json.data) || typeof json.data.name !== 'string')
    throw new CheckpointCorruptError(file, '"data.name" is missing');
  if (!isObject(json.files)) throw new CheckpointCorruptError(file, '"files" (sizes and CRC-32 of the tensor files) is missing');
  return json;
}

/**
 * Reads one checkpoint; any damage is a CheckpointCorruptError naming the file (sizes and CRC-32 are checked first).
 * Typed as a SPLADE run's: a masked-LM run's recipe carries `objective: 'mlm'` (isMlmRecipe), and resuming compares it.
 */
export async function readCheckpoint(store: CheckpointStore, name: string): Promise<TrainingState> {
  const where = `${store.label}/${name}`;
  const stateBytes = await store.read(name, STATE);
  if (stateBytes === null) throw new CheckpointCorruptError(`${where}/${STATE}`, 'missing: the checkpoint is incomplete');
  const json = parseState(`${where}/${STATE}`, stateBytes);
  const tensors = new Map<string, Map<string, HostTensor>>();
  for (const file of [MODEL, OPTIMIZER]) {
    const path = `${where}/${file}`;
    const expected = (json.files as Json)[file];
    if (!isObject(expected)) throw new CheckpointCorruptError(`${where}/${STATE}`, `no size and CRC-32 for ${file}`);
    const bytes = await store.read(name, file);
    if (bytes === null) throw new CheckpointCorruptError(path, 'missing: the checkpoint is incomplete');
    if (bytes.length !== expected.bytes)
      throw new CheckpointCorruptError(
        path,
        `${bytes.length} bytes, ${STATE} says ${String(expected.bytes)}: the file is truncated or damaged`,
      );
    if (crc32(bytes) !== expected.crc32)
      throw new CheckpointCorruptError(path, `CRC-32 differs from the one in ${STATE}: the file is damaged`);
    try {
      tensors.set(file, readSafetensors(bytes, path).tensors);
    } catch (error) {
      throw new CheckpointCorruptError(path, error instanceof Error ? error.message : String(error));
    }
  }
  const params = tensors.get(MODEL)!;
  const saved = tensors.get(OPTIMIZER)!;
  const moments: OptimizerState['moments'] = new Map();
  for (const [key, tensor] of saved) {
    if (!key.endsWith('.m')) continue;
    const param = key.slice(0, -2);
    const v = saved.get(`${param}.v`);
    if (!v) throw new CheckpointCorruptError(`${where}/${OPTIMIZER}`, `has ${key} but no ${param}.v`);
    moments.set(param, { m: tensor.data, v: v.data });
  }
  return {
    config: json.config as HfConfig,
    params,
    optimizer: { step: json.optimizerStep as number, moments },
    t: json.t as number,
    position: json.position as DataPosition,
    recipe: json.recipe as TrainingRecipe,
    k: json.k as number,
    seed: json.seed as number,
    data: json.data as unknown as DataFingerprint,
    trainingMs: json.trainingMs as number | undefined,
  };
}

/**
 * Reads the newest checkpoint, or returns null when the store has none. A damaged newest checkpoint is an error that
 * names the file and the older checkpoint still there: resuming never silently falls back to older state.
 */
export async function readLatestCheckpoint(store: CheckpointStore): Promise<{ name: string; state: TrainingState } | null> {
  const all = await listCheckpoints(store);
  const latest = all.at(-1);
  if (!latest) return null;
  try {
    return { name: latest.name, state: await readCheckpoint(store, latest.name) };
  } catch (error) {
    const previous = all.at(-2);
    if (error instanceof CheckpointCorruptError && previous) {
      error.message += `. The previous checkpoint ${previous.name} is still in ${store.label}: remove ${latest.name} to resume from it`;
    }
    throw error;
  }
}

/**
 * Writes a checkpoint (atomically, through the store), reads it back and checks it, and only then removes the
 * checkpoints older than the newest `keep` (at least 2: the last good one survives a damaged newer one).
 */
export async function saveCheckpoint(store: CheckpointStore, state: TrainingState<StepRecipe>, keep = 2): Promise<string> {
  const name = checkpointName(state.t);
  const moments = [...state.optimizer.moments].flatMap(
    ([param, { m, v }]) =>
      [
        [`${param} (AdamW m)`, { data: m }],
        [`${param} (AdamW v)`, { data: v }],
      ] as const,
  );
  const bad = findNonFinite([...state.params, ...moments]);
  if (bad) {
    throw new NonFiniteError(
      `training diverged by step ${state.t}: ${bad.name} holds ${bad.value} (index ${bad.index}); checkpoint ${name} was not written ` +
        `and the last good checkpoint in ${store.label} is kept`,
    );
  }
  const files = encodeCheckpoint(state);
  await store.write(name, files);
  for (const [file, bytes] of files) {
    const back = await store.read(name, file);
    if (back === null || back.length !== bytes.length || crc32(back) !== crc32(bytes)) {
      throw new CheckpointCorruptError(
        `${store.label}/${name}/${file}`,
        'reads back differently from what was written (disk full or failing?)',
      );
    }
  }
  const all = await listCheckpoints(store);
  for (const old of all.slice(0, Math.max(0, all.length - Math.max(2, keep)))) await store.remove(old.name);
  return name;
}

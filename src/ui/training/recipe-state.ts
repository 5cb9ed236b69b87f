// The training recipe the page shares: what is typed in its one <recipe-form>, checked here for the training run, the
// sweep and the calibrator alike; the converter's and calibrator's lambdas, the paper's values and a saved run's go in.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { TRAIN_LIMITS, describeRange, inRange, type CheckpointInfo, type TrainRequest } from '../../worker/api.ts';
import { numberProblem, type NumberField } from '../common/number-fields.ts';
import { LAPTOP_RUN, PAPER_LAMBDAS, PAPER_RUN } from '../../contract/training/recipe.ts';

/** The laptop run's defaults (LAPTOP_RUN: the CLI's too); the rest of the recipe is the paper's (AdamW, the lambdas). */
const TRAIN_DEFAULTS = {
  steps: LAPTOP_RUN.steps,
  batchSize: LAPTOP_RUN.batchSize,
  gradAccum: LAPTOP_RUN.gradAccum,
  queryLength: LAPTOP_RUN.queryLength,
  documentLength: LAPTOP_RUN.documentLength,
  checkpointEvery: LAPTOP_RUN.checkpointEvery,
  peakLr: LAPTOP_RUN.peakLr,
  warmupRatio: LAPTOP_RUN.warmupRatio,
  maxGradNorm: LAPTOP_RUN.maxGradNorm,
  lambdaQueries: PAPER_LAMBDAS.queries,
  lambdaDocuments: PAPER_LAMBDAS.documents,
} as const;
export type RecipeNumber = keyof typeof TRAIN_DEFAULTS;
/**
 * Every field of the form: the numbers, the dropout (blank: the backbone's) and the choices (optimiser, FLOPS batch,
 * ranking loss, and the queries: encoded, or a static IDF table for inference-free SPLADE, frozen or trained).
 */
export type RecipeKey = RecipeNumber | 'dropout' | 'optimizer' | 'flopsOver' | 'loss' | 'queries';
/** The recipe as typed: each field's text. */
export type RecipeText = Record<RecipeKey, string>;

/** The part of the recipe a calibration shares (see RecipeState.recipeSettings). */
export type TrainingRecipeSettings = Pick<
  TrainRequest,
  | 'warmupRatio'
  | 'maxGradNorm'
  | 'gradAccum'
  | 'dropout'
  | 'optimizer'
  | 'flopsOver'
  | 'loss'
  | 'inferenceFree'
  | 'trainQueryWeights'
>;
/** What a sweep shares: that, the peak lr and the lambdas (see RecipeState.sweepSettings). */
export type SweepRecipeSettings = TrainingRecipeSettings &
  Required<Pick<TrainRequest, 'peakLr' | 'lambdaQueries' | 'lambdaDocuments'>>;
export type Lambdas = Required<Pick<TrainRequest, 'lambdaQueries' | 'lambdaDocuments'>>;

/** The numbers of a run, each bounded by the application's one set of limits (TRAIN_LIMITS). */
export const RECIPE_NUMBERS: readonly NumberField<RecipeNumber>[] = [
  { key: 'steps', label: 'Steps', range: TRAIN_LIMITS.steps },
  { key: 'batchSize', label: 'Batch (triplets)', range: TRAIN_LIMITS.batchSize },
  { key: 'gradAccum', label: 'Micro-batches per step', range: TRAIN_LIMITS.gradAccum },
  { key: 'queryLength', label: 'Query tokens', range: TRAIN_LIMITS.queryLength },
  { key: 'documentLength', label: 'Document tokens', range: TRAIN_LIMITS.documentLength },
  { key: 'checkpointEvery', label: 'Checkpoint every', range: TRAIN_LIMITS.checkpointEvery },
  { key: 'peakLr', label: 'Peak lr', range: TRAIN_LIMITS.peakLr },
  { key: 'warmupRatio', label: 'Warm-up (fraction)', range: TRAIN_LIMITS.ratio },
  { key: 'maxGradNorm', label: 'Clip grad norm (0: off)', range: TRAIN_LIMITS.maxGradNorm },
  { key: 'lambdaQueries', label: 'λ_q', range: TRAIN_LIMITS.lambda },
  { key: 'lambdaDocuments', label: 'λ_d', range: TRAIN_LIMITS.lambda },
];
const LAMBDA_KEYS = ['lambdaQueries', 'lambdaDocuments'] as const;

/** The choices (and the blank dropout) as a new form and the paper's recipe have them. */
const DEFAULT_CHOICES = {
  dropout: '',
  optimizer: 'adamw',
  flopsOver: 'micro-batch',
  loss: 'contrastive',
  queries: 'encoded',
} as const;

/**
 * The paper's recipe (PAPER.md): 64 triplets per GPU on 8 GPUs (here 8 accumulated micro-batches), 256 tokens, AdamW
 * at 1e-4 with 10% warm-up, transformers' clipping at 1.0, the backbone's dropout. Heavy for a laptop: one click away.
 */
const PAPER_FIELDS: Partial<Record<RecipeNumber, number>> = {
  ...PAPER_RUN,
  lambdaQueries: PAPER_LAMBDAS.queries,
  lambdaDocuments: PAPER_LAMBDAS.documents,
};

function texts(values: Partial<Record<RecipeNumber, number>>): Partial<RecipeText> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)]));
}

/** Which fields changed ('recipe-change'), or one field's problem, '' for none ('recipe-validity'). */
export type RecipeChange = CustomEvent<{ keys: RecipeKey[] }>;
export type RecipeValidity = CustomEvent<{ key: RecipeKey; problem: string }>;

/**
 * The recipe as typed, and its checks. Events: 'recipe-read' before each check (the form hands over what is typed:
 * a value set by a script fires no input event), 'recipe-change' after fields changed, and 'recipe-validity' for each
 * field a check looked at (the form marks it, and reports a problem at the field, as the browser does).
 */
export class RecipeState extends EventTarget {
  private typed: RecipeText = { ...(texts(TRAIN_DEFAULTS) as Record<RecipeNumber, string>), ...DEFAULT_CHOICES };

  get text(): Readonly<RecipeText> {
    return this.typed;
  }

  /** Sets fields; 'recipe-change' names those whose text changed (none: no event). */
  set(patch: Partial<RecipeText>): void {
    const keys = (Object.keys(patch) as RecipeKey[]).filter((key) => patch[key] !== undefined && patch[key] !== this.typed[key]);
    if (keys.length === 0) return;
    this.typed = { ...this.typed, ...patch };
    this.dispatchEvent(new CustomEvent('recipe-change', { detail: { keys } }));
  }

  /** The λ fields from the converter or the calibrator. */
  setLambdas(lambdas: Lambdas): void {
    this.set(Object.fromEntries(LAMBDA_KEYS.map((key) => [key, String(Number(lambdas[key].toPrecision(4)))])));
  }

  /** A saved run's settings (what resuming uses, and a starting point for a new run). */
  showSaved({ recipe }: CheckpointInfo): void {
    this.set({
      ...texts({
        steps: recipe.schedule.totalSteps,
        batchSize: recipe.batchSize,
        gradAccum: recipe.gradAccum ?? 1,
        queryLength: recipe.queryLength,
        documentLength: recipe.documentLength,
        peakLr: recipe.schedule.peakLr,
        warmupRatio: recipe.schedule.warmupRatio,
        maxGradNorm: recipe.maxGradNorm ?? 0,
        lambdaQueries: recipe.lambdaQueries,
        lambdaDocuments: recipe.lambdaDocuments,
      }),
      dropout: recipe.dropout === 'config' ? '' : String(recipe.dropout ?? 0),
      optimizer: recipe.optimizer.kind ?? 'adamw',
      flopsOver: recipe.flopsOver ?? 'micro-batch',
      loss: recipe.loss ?? 'contrastive',
      queries: recipe.inferenceFree ? (recipe.inferenceFree.trained ? 'trained' : 'static') : 'encoded',
    });
  }

  usePaperRecipe(): void {
    this.set({ ...texts(PAPER_FIELDS), ...DEFAULT_CHOICES });
  }

  /** The λ fields as numbers (the paper's where a field is not a valid number), as a saved run is looked up by them. */
  lambdas(): Lambdas {
    const read = (key: (typeof LAMBDA_KEYS)[number]) => {
      const value = Number(this.typed[key]);
      return inRange(value, TRAIN_LIMITS.lambda) ? value : TRAIN_DEFAULTS[key];
    };
    return { lambdaQueries: read('lambdaQueries'), lambdaDocuments: read('lambdaDocuments') };
  }

  /** Every number of a run, checked; null after saying which is wrong. */
  runValues(): Record<RecipeNumber, number> | null {
    return this.values(RECIPE_NUMBERS.map((f) => f.key));
  }

  /**
   * The recipe beyond batch, lengths, lr and lambdas (optimizer, warm-up, clipping, dropout, accumulation), which a
   * calibration trains with so that its lambdas carry over to the form's run; null after saying what is wrong.
   */
  recipeSettings(): TrainingRecipeSettings | null {
    const values = this.values(['warmupRatio', 'maxGradNorm', 'gradAccum'] as const);
    const dropout = this.dropout();
    if (!values || dropout === null) return null;
    return {
      ...values,
      dropout,
      optimizer: this.typed.optimizer as TrainRequest['optimizer'],
      flopsOver: this.typed.flopsOver as TrainRequest['flopsOver'],
      // the paper's loss and encoded queries leave the request as it always was
      ...(this.typed.loss !== 'contrastive' ? { loss: this.typed.loss as TrainRequest['loss'] } : {}),
      ...(this.typed.queries === 'static' ? { inferenceFree: true } : {}),
      ...(this.typed.queries === 'trained' ? { inferenceFree: true, trainQueryWeights: true } : {}),
    };
  }

  /** The recipe and also the peak lr and the lambdas, which every run of a sweep trains with; null after saying what is wrong. */
  sweepSettings(): SweepRecipeSettings | null {
    const recipe = this.recipeSettings();
    const values = this.values(['peakLr', 'lambdaQueries', 'lambdaDocuments'] as const);
    return recipe && values ? { ...recipe, ...values } : null;
  }

  /** The numbers among `keys`, checked in the form's order, or null at the first that is wrong. */
  private values<K extends RecipeNumber>(keys: readonly K[]): Record<K, number> | null {
    this.dispatchEvent(new Event('recipe-read'));
    const values = Object.create(null) as Record<K, number>;
    for (const f of RECIPE_NUMBERS) {
      if (!keys.includes(f.key as K)) continue;
      const problem = numberProblem(this.typed[f.key], f);
      this.validity(f.key, problem);
      if (problem) return null;
      values[f.key as K] = Number(this.typed[f.key]);
    }
    return values;
  }

  /** The dropout: undefined (blank: the backbone's), a rate, or null after saying what is wrong. */
  private dropout(): number | undefined | null {
    this.dispatchEvent(new Event('recipe-read'));
    const text = this.typed.dropout;
    if (text.trim() === '') return undefined;
    const rate = Number(text);
    const ok = inRange(rate, TRAIN_LIMITS.dropout);
    this.validity('dropout', ok ? '' : `Dropout must be ${describeRange(TRAIN_LIMITS.dropout)}, or blank for the backbone's.`);
    return ok ? rate : null;
  }

  private validity(key: RecipeKey, problem: string): void {
    this.dispatchEvent(new CustomEvent('recipe-validity', { detail: { key, problem } }));
  }
}

type RecipeListeners = Partial<Record<'recipe-read' | 'recipe-change' | 'recipe-validity', (event: Event) => void>>;

/** Listens to the host's recipe while the host is connected, following it when the host is handed another. */
export class RecipeListener implements ReactiveController {
  private followed: RecipeState | null = null;

  constructor(
    host: ReactiveControllerHost,
    private readonly recipe: () => RecipeState,
    private readonly listeners: RecipeListeners,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    this.follow(this.recipe());
  }

  hostUpdate(): void {
    this.follow(this.recipe());
  }

  hostDisconnected(): void {
    this.follow(null);
  }

  private follow(next: RecipeState | null): void {
    if (next === this.followed) return;
    for (const [type, listener] of Object.entries(this.listeners)) {
      this.followed?.removeEventListener(type, listener);
      next?.addEventListener(type, listener);
    }
    this.followed = next;
  }
}

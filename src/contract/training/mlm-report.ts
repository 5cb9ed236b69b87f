// What a masked-LM run reports as plain data: each reported step's loss, accuracy and throughput, and the head's row
// norms as they grow (the cause of the long rows the paper divides by k).
import type { MlmRecipe } from './mlm-recipe.ts';
import type { DataPosition } from './training-report.ts';

/** The head's row norms at a step: what masked-LM training grows. */
export interface HeadGrowth {
  /** Steps taken when measured (0: the starting head). */
  step: number;
  meanRowNorm: number;
  maxRowNorm: number;
  p99RowNorm: number;
  /** Mean cosine of sampled row pairs. */
  anisotropy: number;
}

export interface MlmStepReport {
  /** 0-based step this report follows. */
  step: number;
  /** Mean cross-entropy over the predicted positions (means over the step's micro-batches). */
  loss: number;
  /** Fraction of the predicted positions whose highest logit is the label. */
  accuracy: number;
  /** Predicted positions per micro-batch. */
  predicted: number;
  /** Mean over the predicted positions of their largest logit: how sharp the head's scores are. */
  logitScale: number;
  /** Global L2 norm of the averaged gradient, before clipping. */
  gradNorm: number;
  steps: number;
  lr: number;
  /** Perplexity of the predicted positions: exp(loss). */
  perplexity: number;
  msPerStep: number;
  stepsPerSecond: number;
  tokensPerSecond: number;
  position: DataPosition;
}

/** What a masked-LM run tells its caller (the CLI's lines, the page's chart) as it goes. */
export type MlmEvent =
  | { kind: 'start'; startStep: number; resumedFrom: string | null; recipe: MlmRecipe; seed: number; provenance: string }
  | { kind: 'report'; report: MlmStepReport }
  | { kind: 'head'; growth: HeadGrowth }
  | { kind: 'checkpoint'; name: string; step: number; store: string }
  /** Something the user should know that changes no result (the page's damaged sequence cache, tokenized again). */
  | { kind: 'note'; note: string };

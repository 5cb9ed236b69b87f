// What a recipe says of its optimiser (AdamW or plain SGD), and how cards and the Runs tab name it; no GPU code.

/** AdamW (transformers' Trainer default); `kind` is absent in recipes saved before SGD existed. */
export interface AdamWSettings extends AdamWMoments {
  kind?: 'adamw';
}

/** AdamW's constants other than the learning rate (which the schedule sets per step). */
export interface AdamWMoments {
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
}

/** Plain SGD (torch.optim.SGD without momentum). */
export interface SgdSettings {
  kind: 'sgd';
  weightDecay: number;
}

export type OptimizerSettings = AdamWSettings | SgdSettings;

export const OPTIMIZER_NAMES = ['adamw', 'sgd'] as const;

export type OptimizerName = (typeof OPTIMIZER_NAMES)[number];

/** The name of a recipe's optimiser. */
export function optimizerName(settings: OptimizerSettings): OptimizerName {
  return settings.kind ?? 'adamw';
}

/** One line naming a recipe's optimiser and its settings, for cards, reports and the Runs tab. */
export function describeOptimizer(settings: OptimizerSettings): string {
  const decay = `weight decay ${settings.weightDecay} on weights and embeddings (not biases and LayerNorms)`;
  if (settings.kind === 'sgd') return `SGD without momentum, ${decay}`;
  return `AdamW, beta1 ${settings.beta1}, beta2 ${settings.beta2}, eps ${settings.eps}, decoupled ${decay}`;
}

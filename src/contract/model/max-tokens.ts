// The longest sequence a model can encode: learned absolute positions stop at max_position_embeddings (RoBERTa's
// count from padding_idx + 1); rotary positions have no table, so the config's length is the bound it was trained to.
import { InvalidRequestError } from '../limits.ts';
import type { ModelConfig } from './model-config.ts';

export function maxSequenceTokens(config: ModelConfig): number {
  if (config.positions === 'roberta') return config.maxPositions - config.padTokenId - 1;
  return config.maxPositions;
}

/** Refuses token lengths the model cannot encode (its position table ends there), naming the model's limit. */
export function checkLengthsFit(config: ModelConfig, lengths: Record<string, number>): void {
  const max = maxSequenceTokens(config);
  for (const [what, value] of Object.entries(lengths)) {
    if (value > max) {
      throw new InvalidRequestError(
        `${what} must be at most ${max} tokens for this model (its position table, max_position_embeddings ${config.maxPositions}, ends there), got ${value}`,
      );
    }
  }
}

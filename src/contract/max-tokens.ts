// The longest sequence a model can encode: learned absolute positions stop at max_position_embeddings (RoBERTa's
// count from padding_idx + 1); rotary positions have no table, so the config's length is the bound it was trained to.
import type { ModelConfig } from './model-config.ts';

export function maxSequenceTokens(config: ModelConfig): number {
  if (config.positions === 'roberta') return config.maxPositions - config.padTokenId - 1;
  return config.maxPositions;
}

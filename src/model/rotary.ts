// Which rotary frequencies and attention window each layer of a config uses: one answer for the float64 reference
// and the GPU pass. ModernBERT: a base per layer kind (global or local window); GTE: one base, NTK-scaled or not.
import { ropeInverseFrequencies } from '../kernels/host/rope-table.ts';
import type { ModelConfig } from '../contract/model/model-config.ts';

export interface LayerAttentionKind {
  /** A stable name for the kind ("global", "local"): layers of one kind share their attention kernels. */
  kind: string;
  /** Inverse frequencies (headDim / 2) of the layer's rotary embeddings; null without rotary positions. */
  rope: Float64Array | null;
  /** Keys a query sees on each side (sliding window); null: every key. */
  halfWindow: number | null;
}

/** Layer i's attention kind: rotary frequencies and window. */
export function layerAttentionKind(config: ModelConfig, layer: number): LayerAttentionKind {
  const mb = config.modernBert;
  if (mb) {
    const local = mb.layerKinds[layer] === 'local';
    return {
      kind: local ? 'local' : 'global',
      rope: ropeInverseFrequencies(config.headDim, local ? mb.localRopeTheta : mb.globalRopeTheta),
      halfWindow: local ? Math.floor(mb.localAttention / 2) : null,
    };
  }
  const gte = config.gte;
  return {
    kind: 'global',
    rope: gte ? ropeInverseFrequencies(config.headDim, gte.ropeTheta, gte.ropeScaling) : null,
    halfWindow: null,
  };
}

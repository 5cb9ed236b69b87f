// Which dropout sites an encoder pass has, and the number each one's mask key is drawn under: the one numbering the
// GPU pass (gpu-encoder.ts) and the float64 reference (reference/encoder.ts) share, so their masks are the same.
import type { DropoutRates } from '../contract/model/model-config.ts';

/** A site's number in its pass, or null where the rate is 0 (no site). */
export interface LayerDropoutSites {
  probs: number | null;
  attnOut: number | null;
  mlpActivation: number | null;
  mlpOutput: number | null;
}

export interface DropoutSitePlan {
  embeddings: number | null;
  layers: LayerDropoutSites[];
}

/**
 * Numbers the sites with a non-zero rate in pass order: the embeddings, then per layer probs, attention output, MLP
 * activation, MLP output.
 */
export function planDropoutSites(layers: number, rates: DropoutRates): DropoutSitePlan {
  let next = 0;
  const site = (rate: number) => (rate > 0 ? next++ : null);
  const embeddings = site(rates.embeddings);
  return {
    embeddings,
    layers: Array.from({ length: layers }, () => ({
      probs: site(rates.attentionProbs),
      attnOut: site(rates.attentionOutput),
      mlpActivation: site(rates.mlpActivation),
      mlpOutput: site(rates.mlpOutput),
    })),
  };
}

/** The streams of a training step's two passes: their masks are drawn apart. */
export const DROPOUT_STREAMS = { queries: 0, documents: 1 } as const;

/** Sites of one pass at most: a pass's `stream` (queries 0, documents 1) keeps its keys apart from another's. */
const SITES_PER_STREAM = 65536;

/** The number a site's key is drawn under: its pass's stream and its own number. */
export function dropoutSiteId(stream: number, site: number): number {
  if (site >= SITES_PER_STREAM) throw new RangeError(`dropout site ${site}: a pass has at most ${SITES_PER_STREAM} sites`);
  return stream * SITES_PER_STREAM + site;
}

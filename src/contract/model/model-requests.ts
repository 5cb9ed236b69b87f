// Requests of the model features, checked against limits.ts: the k demo's plan and an encoding's settings.
import { checkRange, K_DEMO_LIMITS, checkK, TRAIN_LIMITS, EVAL_LIMITS } from '../limits.ts';

/** The teaching demo: head-only training on a synthetic large-norm head (no model, no data), once per k. */
export interface KDemoRequest {
  ks: number[];
  steps: number;
  /** Seeds the synthetic head and batch (default 42). */
  seed?: number;
  /** Read the losses back every this many steps, and at the last (default: about 60 points per line). */
  every?: number;
}

/** Points per line the demo reads back by default. */
export const K_DEMO_POINTS = 60;

export function checkKDemoRequest(request: KDemoRequest): Required<KDemoRequest> {
  checkRange(request.ks.length, K_DEMO_LIMITS.ks, 'The number of k values');
  request.ks.forEach((k) => checkK(k));

  const steps = checkRange(request.steps, K_DEMO_LIMITS.steps, 'Steps');
  return {
    ks: [...request.ks],
    steps,
    seed: request.seed === undefined ? 42 : checkRange(request.seed, TRAIN_LIMITS.seed, 'The seed'),
    every:
      request.every === undefined
        ? Math.max(1, Math.floor(steps / K_DEMO_POINTS))
        : checkRange(request.every, K_DEMO_LIMITS.steps, 'Read-back every'),
  };
}

/** Sparse encoding of texts under k. */
export interface EncodeRequest {
  k: number;
  /** Tokens per text, special tokens included. */
  maxLength: number;
  /** Keep each vector's largest weights only (0 or absent: keep all). */
  topK?: number;
}

export function checkEncodeRequest(request: EncodeRequest): Required<EncodeRequest> {
  return {
    k: checkK(request.k),
    maxLength: checkRange(request.maxLength, EVAL_LIMITS.documentLength, 'The maximum length'),
    topK: checkRange(request.topK ?? 0, EVAL_LIMITS.prune, 'The number of weights kept per vector'),
  };
}

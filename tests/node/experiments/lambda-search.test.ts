// The calibrator's search reaches a sparsity target on synthetic responses (power laws, saturated at the vocabulary
// and emptying below one dimension) within a few trials, from too dense and from collapsed starts.
import { describe, expect, it } from 'vitest';
import {
  closestTrial,
  nextLambdas,
  withinTarget,
  type LambdaPair,
  type ReachedSparsity,
  type SparsityTarget,
} from '../../../src/contract/experiments/lambda-search.ts';

const V = 30522;

/** A model whose active dimensions fall as a power of lambda, clipped to [0, V]. */
function response(c: number, alpha: number, crossTalk = 0) {
  const side = (own: number, other: number) => {
    const active = c * own ** -alpha * (1 + crossTalk * Math.log10(other / 1e-3));
    return active < 1 ? 0 : Math.min(V, active);
  };
  return (l: LambdaPair): ReachedSparsity => ({
    ...l,
    activeQueries: side(l.lambdaQueries, l.lambdaDocuments) / 4,
    activeDocuments: side(l.lambdaDocuments, l.lambdaQueries),
  });
}

function search(
  model: (l: LambdaPair) => ReachedSparsity,
  start: LambdaPair,
  target: SparsityTarget,
  maxTrials: number,
): ReachedSparsity[] {
  const trials = [model(start)];
  while (trials.length < maxTrials && !withinTarget(trials.at(-1)!, target)) trials.push(model(nextLambdas(trials, target)));
  return trials;
}

describe('lambda search', () => {
  const target: SparsityTarget = { queries: 30, documents: 150, tolerance: 0.15 };

  it.each([
    ['a steep response from too sparse', response(2, 1), { lambdaQueries: 5e-2, lambdaDocuments: 3e-3 }],
    ['a shallow response from dense', response(40, 0.4), { lambdaQueries: 1e-6, lambdaDocuments: 1e-6 }],
    ['a collapsed start', response(0.5, 1.5), { lambdaQueries: 1, lambdaDocuments: 1 }],
    ['queries and documents that interact', response(3, 0.8, 0.1), { lambdaQueries: 5e-2, lambdaDocuments: 3e-3 }],
  ])('%s', (_, model, start) => {
    const trials = search(model, start, target, 8);
    const best = closestTrial(trials, target);
    expect(
      withinTarget(best, target),
      JSON.stringify(trials.map((t) => [t.lambdaQueries, t.activeQueries, t.lambdaDocuments, t.activeDocuments])),
    ).toBe(true);
  });

  it('reaches a target when one lambda drives both counts (a shared encoder: documents follow lambda_q)', () => {
    const shared = (l: LambdaPair): ReachedSparsity => {
      const q = 300 * (l.lambdaQueries / 0.36) ** -1 * (l.lambdaDocuments / 0.01) ** -0.05;
      return { ...l, activeQueries: Math.min(V, q), activeDocuments: Math.min(V, 1.2 * q * (l.lambdaDocuments / 0.01) ** -0.1) };
    };
    const wanted = { queries: 200, documents: 320, tolerance: 0.15 };
    const trials = search(shared, { lambdaQueries: 5e-2, lambdaDocuments: 3e-3 }, wanted, 6);
    expect(withinTarget(closestTrial(trials, wanted), wanted), JSON.stringify(trials)).toBe(true);
  });

  it('moves each lambda the right way from one trial', () => {
    const next = nextLambdas([{ lambdaQueries: 0.1, lambdaDocuments: 0.01, activeQueries: 10, activeDocuments: 900 }], target);
    expect(next.lambdaQueries).toBeLessThan(0.1);
    expect(next.lambdaDocuments).toBeGreaterThan(0.01);
  });

  it('lowers a lambda that emptied the vectors, and stays inside a bracket', () => {
    const collapsed = nextLambdas([{ lambdaQueries: 1, lambdaDocuments: 1, activeQueries: 0, activeDocuments: 0 }], target);
    expect(collapsed.lambdaQueries).toBeLessThan(1);
    const bracketed = nextLambdas(
      [
        { lambdaQueries: 1e-3, lambdaDocuments: 1e-3, activeQueries: 3000, activeDocuments: 3000 },
        { lambdaQueries: 1, lambdaDocuments: 1, activeQueries: 0, activeDocuments: 0 },
      ],
      target,
    );
    for (const l of [bracketed.lambdaQueries, bracketed.lambdaDocuments]) {
      expect(l).toBeGreaterThan(1e-3);
      expect(l).toBeLessThan(1);
    }
  });
});

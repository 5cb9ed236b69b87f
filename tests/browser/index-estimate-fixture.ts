// A made-up index estimate of a set (what the worker's indexEstimate returns), for the element tests of the Evaluate panel.
import { IMPACT_SIZE_MODELS, type IndexEstimate, type PruningPoint } from '../../src/worker/api.ts';

function point(rule: PruningPoint['rule'], postings: number, indexBytes: number, ndcg: number): PruningPoint {
  return {
    rule,
    queriesPruned: rule.kind === 'top',
    postings,
    indexBytes,
    meanQueryPostings: postings / 10,
    ndcg_cut_10: ndcg,
    recip_rank_10: ndcg / 2,
  };
}

/** Six points: all, top 64, 16, 4, and two thresholds, nDCG@10 falling as the index shrinks. */
export function indexEstimateFixture(set: string): IndexEstimate {
  return {
    set,
    request: { pruneTop: [64, 16, 4], pruneThreshold: [0.5, 1], scale: 100 },
    postingLengths: {
      postings: 1200,
      terms: 300,
      mean: 4,
      p50: 2,
      p99: 40,
      max: 60,
      longest: [
        { term: 'the', id: 1996, length: 60 },
        { term: 'cat', id: 4937, length: 12 },
      ],
    },
    queryPostings: {
      mean: 123.5,
      p50: 110,
      p99: 400,
      perQuery: [
        { id: 'q1', postings: 110 },
        { id: 'q2', postings: 137 },
      ],
    },
    size: {
      anserini: { model: IMPACT_SIZE_MODELS.anserini, scale: 100, postings: 1190, bytes: 2600 },
      byte: { model: IMPACT_SIZE_MODELS.byte, scale: 85, postings: 1195, bytes: 2400 },
    },
    curve: [
      point({ kind: 'all' }, 1200, 2600, 0.61234),
      point({ kind: 'top', n: 64 }, 1100, 2400, 0.6),
      point({ kind: 'top', n: 16 }, 600, 1300, 0.52),
      point({ kind: 'top', n: 4 }, 200, 450, 0.31),
      point({ kind: 'threshold', weight: 0.5 }, 700, 1500, 0.55),
      point({ kind: 'threshold', weight: 1 }, 300, 650, 0.4),
    ],
  };
}

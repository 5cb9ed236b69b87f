// The lesson's comparing sentences follow its numbers both ways: sparse or dense (the V share), what dividing did
// (smaller logits, fewer or about as many terms), who is ahead while training and at the end (on nDCG@10 and on
// sparsity, "level" when they print the same), how the losses started and what their end means, and the head-growth
// loss "fell" or "rose"; the bundled recording's take-away names the k its own final numbers put ahead.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  SPARSE_SHARE,
  divisionClaims,
  figure,
  lessonOutcomes,
  lessonTakeaway,
  movedFromTo,
  percent,
  sparsityClaim,
  trainingClaim,
  type KOutcome,
} from '../../../src/contract/lesson/lesson-claims.ts';
import { apartBySpelling, type LessonFrame, type LessonVector } from '../../../src/contract/lesson/lesson-frames.ts';
import { parseLessonTrace } from '../../../src/contract/lesson/lesson-trace.ts';

const V = 30522;

function vector(k: number, figures: Partial<LessonVector> = {}): LessonVector {
  return {
    k,
    text: 'a whale swims',
    tokens: ['a', 'whale', 'swims'],
    activeDims: 100,
    terms: [],
    vocabSize: V,
    special: [],
    specialDims: 0,
    flops: 10,
    weightSum: 5,
    maxWeight: 1,
    maxLogit: Math.expm1(1),
    medianLogit: 0.5,
    ...figures,
  };
}

function outcome(
  k: number,
  after: { ndcg10: number; dims: number; flops?: number },
  ranks: [number, number] | null = [10, 1],
): KOutcome {
  const measure = (ndcg10: number, dims: number, flops: number) => ({
    ndcg10,
    recall10: 0.5,
    queryActiveDims: dims,
    documentActiveDims: dims,
    flops,
  });
  return {
    k,
    before: measure(0.5, 20000, 20000),
    after: measure(after.ndcg10, after.dims, after.flops ?? after.dims),
    at: 40,
    firstRank: ranks?.[0] ?? null,
    lastRank: ranks?.[1] ?? null,
    firstFlopsQ: null,
    lastFlopsQ: null,
  };
}

describe('step 1: sparse, mostly zero or dense', () => {
  it.each([
    [1344, 'sparse'],
    [Math.floor(V * SPARSE_SHARE), 'sparse'],
    [Math.floor(V * SPARSE_SHARE) + 1, 'mostly zero'],
    [2674, 'mostly zero'],
    [Math.ceil(V / 2) - 1, 'mostly zero'],
    [Math.ceil(V / 2), 'dense'],
    [29717, 'dense'],
  ])('%i of V active: %s', (activeDims, kind) => {
    const claim = sparsityClaim(vector(8, { activeDims }), true);
    expect(claim.sparse).toBe(kind === 'sparse');
    expect(claim.mostlyZero).toBe(kind !== 'dense');
    expect(claim.text).toContain(`${activeDims.toLocaleString('en-US')} of its 30,522 dimensions are active`);
    if (kind === 'sparse') {
      expect(claim.text).toMatch(/the vector is sparse/);
      expect(claim.text).not.toMatch(/dense/);
    } else if (kind === 'mostly zero') {
      const zero = percent(1 - activeDims / V);
      expect(claim.text).toContain(
        `most entries are zero (${zero}), yet ${activeDims.toLocaleString('en-US')} terms are far more`,
      );
      expect(claim.text).toMatch(/As in a real masked LM such as BERT, most words get a negative logit/);
      expect(claim.text).not.toMatch(/dense|the vector is sparse/);
    } else {
      expect(claim.text).toMatch(/this demo's raw vector is dense, not sparse/);
      expect(claim.text).toMatch(/log\(1 \+ ReLU\) keeps every positive logit/);
      expect(claim.text).toMatch(/A real masked LM such as BERT gives most words a negative logit/);
      expect(claim.text).not.toMatch(/most entries are zero/);
    }
  });

  it('says "this model" of a model that is not the demo, without comparing it with a real masked LM', () => {
    const claim = sparsityClaim(vector(1, { activeDims: 20000 }), false);
    expect(claim.text).toMatch(/this model's raw vector is dense/);
    expect(claim.text).not.toMatch(/real masked LM/);
  });

  it('prints shares and figures as the page does', () => {
    expect([percent(0.9736), percent(0.00001), percent(0)]).toEqual(['97.4%', 'under 0.1%', '0.0%']);
    expect([figure(82720.4), figure(87976), figure(18.734), figure(0.5347), figure(0)]).toEqual([
      '82,720',
      '87,980',
      '18.7',
      '0.535',
      '0',
    ]);
  });
});

describe('step 2: what dividing did', () => {
  const plain = vector(1, { activeDims: 30360, maxLogit: 18.7, flops: 82720 });

  it('about as many terms: says that dividing removes none by itself, and that fewer terms come from training', () => {
    const [claim] = divisionClaims([plain, vector(8, { activeDims: 28964, maxLogit: 1.83, flops: 4697 })]);
    expect(claim.fewerTerms).toBe(false);
    expect(claim.cheaper).toBe(true);
    expect(claim.text).toMatch(/the largest logit is 10 times smaller \(18\.7 → 1\.83\)/);
    expect(claim.text).toMatch(/FLOPS 18 times smaller \(82,720 → 4,697\)/);
    expect(claim.text).toMatch(/keeps about as many active dimensions \(30,360 → 28,964\)/);
    expect(claim.text).toMatch(/Fewer terms have to come from training/);
  });

  it.each([
    [2000, /far fewer active dimensions \(30,360 → 2,000\), 15 times fewer\.$/],
    [25000, /keeps fewer active dimensions \(30,360 → 25,000\)\.$/],
  ])('fewer terms (%i) are called fewer, with no excuse', (activeDims, wording) => {
    const [claim] = divisionClaims([plain, vector(8, { activeDims, maxLogit: 1.83, flops: 4697 })]);
    expect(claim.fewerTerms).toBe(true);
    expect(claim.text).toMatch(wording);
  });

  it('a divided head with larger logits, more FLOPS and more terms is said to have them', () => {
    const [claim] = divisionClaims([plain, vector(8, { activeDims: 30500 * 1.1, maxLogit: 40, flops: 90000 })]);
    expect(claim.cheaper).toBe(false);
    expect(claim.text).toMatch(/largest logit is 2\.1 times larger/);
    expect(claim.text).toMatch(/FLOPS about the same \(82,720 → 90,000\)|FLOPS 1\.1 times larger/);
    expect(claim.text).toMatch(/more active dimensions/);
  });

  it('compares every divided k with the head as loaded, or with the smallest k when the lesson has no k = 1', () => {
    expect(divisionClaims([plain, vector(4), vector(16)]).map((c) => c.k)).toEqual([4, 16]);
    const [claim] = divisionClaims([vector(2, { maxLogit: 8 }), vector(8, { maxLogit: 2 })]);
    expect(claim.text).toMatch(/^With the head divided by 8 instead of by 2, the largest logit is 4 times smaller/);
  });
});

describe('step 3: where the training stands', () => {
  const frame = (step: number, active: [number, number], ndcg: [number, number] | null): LessonFrame => ({
    step,
    runs: [1, 8].map((k, i) => ({
      k,
      losses: { rank: 1, flopsQueries: 1, flopsDocuments: 1, total: 1 },
      active: { queries: active[i], documents: 1 },
      probe: vector(k),
      heldOut: ndcg
        ? { ndcg10: ndcg[i], recall10: 0.5, queryActiveDims: active[i], documentActiveDims: 1, flops: active[i] }
        : null,
    })),
  });

  it('names the k ahead at the last measured step, whichever it is', () => {
    const early = trainingClaim([frame(20, [23197, 5281], [0.8455, 0.7452])])!;
    expect(early.ndcgLeader).toBe(1);
    expect(early.sparsest).toBe(8);
    expect(early.text).toMatch(
      /After step 20, k = 8's training queries keep 5,281 active dimensions against 23,200 for k = 1 \(4\.4 times fewer\)/,
    );
    expect(early.text).toMatch(/at step 20, k = 1 is ahead \(nDCG@10 0\.846 against 0\.745 for k = 8\)/);
    const late = trainingClaim([frame(20, [23197, 5281], [0.8455, 0.7452]), frame(21, [20000, 5000], null)])!;
    expect(late.text).toMatch(/^After step 21, .* at step 20, k = 1 is ahead/);
    const turned = trainingClaim([frame(40, [17190, 1556], [0.7512, 0.937])])!;
    expect(turned.ndcgLeader).toBe(8);
    expect(turned.text).toMatch(/k = 8 is ahead \(nDCG@10 0\.937 against 0\.751 for k = 1\)/);
    expect(turned.cheapest).toBe(8);
    expect(turned.text).toMatch(/; k = 8 costs the least to search them \(retrieval FLOPS 1,556 against 17,190 for k = 1\)\.$/);
  });

  it('says "level" when the two print the same, and the denser k when k = 1 is the sparser', () => {
    const level = trainingClaim([frame(4, [3000, 3000.2], [0.90011, 0.90004])])!;
    expect(level.ndcgLeader).toBeNull();
    expect(level.sparsest).toBeNull();
    expect(level.text).toMatch(/the ks are level \(nDCG@10 0\.900 for k = 1 and 0\.900 for k = 8\)/);
    expect(level.text).not.toMatch(/ahead/);
    const reversed = trainingClaim([frame(4, [1000, 9000], null)])!;
    expect(reversed.sparsest).toBe(1);
    expect(reversed.text).toMatch(/k = 1's training queries keep 1,000 active dimensions against 9,000 for k = 8/);
  });

  it('before training: the held-out figures of frame 0 only', () => {
    const zero: LessonFrame = {
      ...frame(0, [1, 1], [0.49754, 0.5968]),
      runs: frame(0, [1, 1], [0.49754, 0.5968]).runs.map((r) => ({ ...r, losses: null, active: null })),
    };
    expect(trainingClaim([zero])!.text).toBe(
      'On the held-out queries before training, k = 8 is ahead (nDCG@10 0.597 against 0.498 for k = 1); ' +
        'the ks cost about the same to search them (retrieval FLOPS 1 for k = 1 and 1 for k = 8).',
    );
    expect(trainingClaim([zero])!.cheapest).toBeNull();
    expect(trainingClaim([])).toBeNull();
  });
});

describe('step 4: the take-away', () => {
  it('one k ahead on both counts, and a loss of 0 at k = 1 explained as saturation, not better ranking', () => {
    const t = lessonTakeaway([
      outcome(1, { ndcg10: 0.7512, dims: 16700.8, flops: 16059.4 }, [800, 0]),
      outcome(8, { ndcg10: 0.937, dims: 1477.2, flops: 1235.2 }, [42.2, 0.5347]),
    ]);
    expect([t.ndcgLeader, t.cheapest]).toEqual([8, 8]);
    expect(t.headline).toBe(
      'After 40 steps, k = 8 is ahead on both counts: it ranks the held-out queries best (nDCG@10 0.937 against 0.751 for k = 1), ' +
        'and it costs the least to search (retrieval FLOPS 1,235 against 16,060 for k = 1, the terms a query and a document are ' +
        'expected to share; 1,477 active dimensions per query against 16,701 for k = 1).',
    );
    expect(t.start).toMatch(/k = 1's ranking loss was 800, 19 times that of k = 8 \(42\.2 for k = 8\)/);
    expect(t.losses).toMatch(/ended at 0 for k = 1 and 0\.535 for k = 8/);
    expect(t.losses).toMatch(/A loss of 0 means every training query's positive document beat its negatives/);
    expect(t.losses).toMatch(
      /k = 1's lower loss is saturation, over-fitting the training batches, not better ranking: .* k = 8 ranks better/,
    );
    expect(t.headline).not.toMatch(/instead of/);
  });

  it('split leaders: each named for what it leads, and "ahead on both" said of neither', () => {
    const t = lessonTakeaway([
      outcome(1, { ndcg10: 0.8455, dims: 23197 }, [800, 0.2]),
      outcome(8, { ndcg10: 0.7452, dims: 5281 }, [42, 0.9]),
    ]);
    expect([t.ndcgLeader, t.cheapest]).toEqual([1, 8]);
    expect(t.headline).toMatch(
      /^After 40 steps, k = 1 \(the head as loaded\) ranks the held-out queries best \(nDCG@10 0\.846 against 0\.745 for k = 8\), while k = 8 costs the least to search/,
    );
    expect(t.headline).toMatch(/here k trades effectiveness against cost\.$/);
    expect(t.headline).not.toMatch(/both counts/);
    expect(t.losses).toMatch(/Here k = 1 both fits the training batches best and ranks the held-out queries best\./);
    expect(t.losses).not.toMatch(/A loss of 0/);
  });

  it('the cheaper k by retrieval FLOPS whose queries keep more terms: both said, and why they can both hold', () => {
    const t = lessonTakeaway([
      outcome(1, { ndcg10: 0.979, dims: 41.4, flops: 16.5 }, [15.7, 0.54]),
      outcome(8, { ndcg10: 0.998, dims: 95.2, flops: 14.2 }, [1.07, 0.38]),
    ]);
    expect([t.ndcgLeader, t.cheapest]).toEqual([8, 8]);
    expect(t.headline).toBe(
      'After 40 steps, k = 8 is ahead on both counts: it ranks the held-out queries best (nDCG@10 0.998 against 0.979 for k = 1), ' +
        'and it costs the least to search (retrieval FLOPS 14.2 against 16.5 for k = 1, the terms a query and a document are ' +
        "expected to share; yet its queries keep more active dimensions, 95 against 41 for k = 1: k = 1's fewer terms are ones more documents share).",
    );
    const level = lessonTakeaway([
      outcome(1, { ndcg10: 0.9, dims: 41, flops: 14.2 }),
      outcome(8, { ndcg10: 0.9, dims: 95, flops: 14.21 }),
    ]);
    expect(level.cheapest).toBeNull();
    expect(level.headline).toMatch(/they cost about the same to search \(retrieval FLOPS 14\.2 for k = 1 and 14\.2 for k = 8\)/);
  });

  it('level on nDCG@10 and on sparsity: no k is "ahead"', () => {
    const t = lessonTakeaway([
      outcome(1, { ndcg10: 0.9, dims: 3000 }, [5, 0.3]),
      outcome(8, { ndcg10: 0.9001, dims: 3000.3 }, [5, 0.1]),
    ]);
    expect([t.ndcgLeader, t.cheapest]).toEqual([null, null]);
    expect(t.headline).toMatch(/the ks are level on the held-out queries .* they cost about the same to search/);
    expect(t.headline).not.toMatch(/ahead|best|trades/);
    expect(t.start).toMatch(/not above 5 for k = 8: dividing did not make the start easier here/);
    expect(t.losses).toMatch(/A lower training loss is not better ranking: on the held-out queries the ks are level\./);
  });

  it('a divided k that starts only a little lower, and a lesson without k = 1 (the smallest k is the reference)', () => {
    const t = lessonTakeaway([
      outcome(2, { ndcg10: 0.6, dims: 900 }, [15, 2]),
      outcome(8, { ndcg10: 0.7, dims: 100 }, [10, 0.001]),
    ]);
    expect(t.start).toBe("At the first step, k = 2's ranking loss was 15, somewhat above 10 for k = 8.");
    expect(t.headline).toMatch(/^After 40 steps, k = 8 is ahead on both counts/);
    expect(t.losses).toMatch(/A loss of 0 means .* Here k = 8 both fits the training batches best/);
  });

  it('before the first step there is no loss to explain; before training the headline says so', () => {
    const t = lessonTakeaway([
      { ...outcome(1, { ndcg10: 0.4975, dims: 28482 }, null), at: 0 },
      { ...outcome(8, { ndcg10: 0.5968, dims: 26041 }, null), at: 0 },
    ]);
    expect(t.headline).toMatch(/^Before training, k = 8 is ahead on both counts/);
    expect([t.start, t.losses]).toEqual([null, null]);
  });

  it('outcomes read the last measured step and the first and last losses', () => {
    const run = (k: number, step: number, ndcg: number | null) => ({
      k,
      losses: step ? { rank: 10 / step, flopsQueries: 1, flopsDocuments: 1, total: 1 } : null,
      active: null,
      probe: vector(k),
      heldOut: ndcg === null ? null : { ndcg10: ndcg, recall10: 0, queryActiveDims: 1, documentActiveDims: 1, flops: 1 },
    });
    const frames = [0, 1, 2, 3].map((step) => ({
      step,
      runs: [run(1, step, step % 2 ? null : 0.5 + step / 10), run(8, step, step % 2 ? null : 0.6)],
    }));
    const [plain] = lessonOutcomes(frames)!;
    expect([plain.at, plain.before.ndcg10, plain.after.ndcg10, plain.firstRank, plain.lastRank]).toEqual([
      2,
      0.5,
      0.7,
      10,
      10 / 3,
    ]);
    expect(lessonOutcomes([])).toBeNull();
  });
});

describe("step 2's recorded masked-LM run", () => {
  it.each([
    [9.91, 8.16, 'fell from 9.91 to 8.16'],
    [8.16, 9.91, 'rose from 8.16 to 9.91'],
    [2.494, 2.4941, 'stayed at 2.49'],
  ])('%f → %f: %s', (from, to, words) => expect(movedFromTo(from, to, 2)).toBe(words));
});

describe('special pieces apart', () => {
  it('splits recorded term lists by spelling, keeping their order', () => {
    const terms = ['[CLS]', 'footprint', 'and', '[SEP]', '[unused12]', 'harbor', '<s>', '##igny'].map((term) => ({ term }));
    const { terms: words, special } = apartBySpelling(terms);
    expect(words.map((t) => t.term)).toEqual(['footprint', 'and', 'harbor', '##igny']);
    expect(special.map((t) => t.term)).toEqual(['[CLS]', '[SEP]', '[unused12]', '<s>']);
  });
});

describe('the bundled recording, through the same sentences', () => {
  it('names the k its own final numbers put ahead, and lists no special piece among the top terms', () => {
    const file = join(process.cwd(), 'public', 'lesson', 'trace.json');
    const trace = parseLessonTrace(JSON.parse(readFileSync(file, 'utf8')), file);
    const outcomes = lessonOutcomes(trace.frames)!;
    const takeaway = lessonTakeaway(outcomes);
    const best = [...outcomes].sort((a, b) => b.after.ndcg10 - a.after.ndcg10)[0];
    const cheapest = [...outcomes].sort((a, b) => a.after.flops - b.after.flops)[0];
    expect(takeaway.ndcgLeader).toBe(best.k);
    expect(takeaway.cheapest).toBe(cheapest.k);
    const claim = sparsityClaim(trace.sentence.at(-1)!, true);
    expect(claim.sparse).toBe(trace.sentence.at(-1)!.activeDims / trace.sentence.at(-1)!.vocabSize <= SPARSE_SHARE);
    for (const v of [...trace.sentence, ...trace.frames.flatMap((f) => f.runs.map((r) => r.probe))])
      expect(apartBySpelling(v.terms).special, `k = ${v.k}`).toEqual([]);
  });
});

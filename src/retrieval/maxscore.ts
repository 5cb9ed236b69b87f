// MaxScore dynamic pruning over the "essential" query dimensions, in document windows; exact like exhaustive scoring.
import type { InvertedIndex } from './inverted-index.ts';
import type { SparseVector } from '../util/sparse-vector.ts';
import { TopK, type Ranking } from './top-k.ts';

/** Default documents per window: essential postings are added term at a time within a window, then its candidates in order. */
const defaultMaxScoreWindow = 1024;

/**
 * Exact top-k by MaxScore (Turtle & Flood 1995). Each query dimension j has an upper bound on its contribution,
 * qw * maxWeights[j] (qw * the smallest weight when qw < 0). Dimensions sorted by bound are split into a
 * non-essential prefix, whose bounds summed cannot get a document into the current top k, and the essential rest;
 * candidates come only from essential posting lists. Documents are taken in windows of `window` numbers: the essential
 * postings of a window are summed term at a time (in dimension order), then its candidates are completed in
 * increasing document order, and the split is updated at the end of each window.
 * A candidate whose bound (partial score + remaining non-essential bounds) cannot enter is skipped; every other
 * candidate is scored in full by adding its terms in increasing query-dimension order in float64, exactly as
 * `sparseDot` and `IndexSearcher` do, so scores are bit-identical and ties fall the same way (`TopK`'s order).
 *
 * Bounds are float64 sums taken in another order than the final score, so they can round below the exact score by
 * a few ulps; every bound gets a slack of (n + 2) * A * 2^-50 (n terms, A = sum of the absolute term bounds), well
 * above the worst rounding error of both sums, so no document that could enter is ever skipped.
 */
export class MaxScoreSearcher {
  /** Documents scored in full by the last `search` (each one offered to the top k). */
  lastFullyScored = 0;
  private readonly minWeights: Float32Array; // (V,) smallest weight per dimension, bounds for negative query weights
  // Per query term, in increasing dimension order; grown to the longest query seen, allocated once otherwise.
  private termQw = new Float64Array(0); // (n,) query weight
  private termCursor = new Uint32Array(0); // (n,) next posting of the term
  private termEnd = new Uint32Array(0); // (n,) one past the term's last posting
  private termBound = new Float64Array(0); // (n,) upper bound of the term's contribution
  private termAbsBound = new Float64Array(0); // (n,) bound of the contribution's magnitude (for the slack)
  private termContribution = new Float64Array(0); // (n,) the current candidate's product qw * w
  private termCandidate = new Float64Array(0); // (n,) the candidate whose product is stored (-1: none)
  private order = new Uint32Array(0); // (n,) terms by bound ascending; order[0..m) are non-essential
  private termRank = new Uint32Array(0); // (n,) position of each term in `order`
  private essential = new Uint32Array(0); // (n,) the essential terms in increasing dimension order
  private windowFrom = new Uint32Array(0); // (n,) an essential term's first posting in the current window
  private readonly acc: Float64Array; // (window,) essential partial sums of the window's documents
  private readonly hits: Uint32Array; // (window/32,) bitset: documents of the window with a posting
  private prefixBound = new Float64Array(0); // (n+1,) prefixBound[r] = sum of the r smallest bounds

  /** `window`: documents per window, a positive multiple of 32 (smaller windows update the split more often). */
  constructor(
    readonly index: InvertedIndex,
    readonly window = defaultMaxScoreWindow,
  ) {
    if (!Number.isInteger(window) || window < 32 || window % 32 !== 0)
      throw new Error(`MaxScore window must be a positive multiple of 32, got ${window}`);
    this.acc = new Float64Array(window);
    this.hits = new Uint32Array(window / 32);
    const { offsets, weights, dimension } = index;
    this.minWeights = new Float32Array(dimension);
    for (let j = 0; j < dimension; j++) {
      let min = offsets[j] < offsets[j + 1] ? Infinity : 0;
      for (let p = offsets[j]; p < offsets[j + 1]; p++) if (weights[p] < min) min = weights[p];
      this.minWeights[j] = min;
    }
  }

  search(query: SparseVector, k: number): Ranking {
    const best = new TopK(k);
    this.lastFullyScored = 0;
    const n = this.prepareTerms(query);
    if (n === 0) return best.sorted();
    const { docs, weights } = this.index;
    const { termQw, termCursor, termEnd, termRank, prefixBound, essential, windowFrom, acc, hits } = this;
    let absoluteBounds = 0;
    for (let t = 0; t < n; t++) absoluteBounds += this.termAbsBound[t];
    const slack = (n + 2) * absoluteBounds * 2 ** -50;

    let essentialFrom = 0; // order[essentialFrom..n) are essential
    let numEssential = n; // essential terms, in increasing dimension order: essential[0..numEssential)
    for (let t = 0; t < n; t++) essential[t] = t;
    for (
      let windowStart = this.smallestCursorDoc(numEssential);
      windowStart !== Infinity;
      windowStart = this.smallestCursorDoc(numEssential)
    ) {
      const windowEnd = windowStart + this.window;
      // Essential postings of the window, term at a time in dimension order: acc = each document's essential partial sum.
      for (let e = 0; e < numEssential; e++) {
        const t = essential[e];
        const qw = termQw[t];
        let p = termCursor[t];
        windowFrom[t] = p;
        for (const end = termEnd[t]; p < end && docs[p] < windowEnd; p++) {
          const i = docs[p] - windowStart;
          const bit = 1 << (i & 31);
          if ((hits[i >> 5] & bit) === 0) {
            hits[i >> 5] |= bit;
            acc[i] = 0;
          }
          acc[i] += qw * weights[p];
        }
        termCursor[t] = p;
      }
      // Candidates in increasing document order.
      for (let word = 0; word < hits.length; word++) {
        let bits = hits[word];
        if (bits === 0) continue;
        hits[word] = 0;
        while (bits !== 0) {
          const i = (word << 5) | (31 - Math.clz32(bits & -bits));
          bits &= bits - 1;
          const doc = windowStart + i;
          this.scoreCandidate(best, doc, acc[i], essentialFrom, n, slack);
        }
      }
      // Later candidates start at windowEnd: move terms whose bounds can no longer matter to the non-essential prefix.
      if (essentialFrom < n && best.rejectsAtMost(windowEnd, prefixBound[essentialFrom + 1] + slack)) {
        while (essentialFrom < n && best.rejectsAtMost(windowEnd, prefixBound[essentialFrom + 1] + slack)) essentialFrom++;
        numEssential = 0;
        for (let t = 0; t < n; t++) if (termRank[t] >= essentialFrom) essential[numEssential++] = t;
      }
    }
    return best.sorted();
  }

  /**
   * Completes one candidate of the current window whose essential terms sum to `partial` (in dimension order): adds
   * non-essential terms, largest bound first, while its bound can still enter; then offers its exact score.
   */
  private scoreCandidate(best: TopK, doc: number, partial: number, essentialFrom: number, n: number, slack: number): void {
    const { docs, weights } = this.index;
    const { termQw, termEnd, termContribution, termCandidate, order, prefixBound } = this;
    let nonEssentialHit = false;
    for (let r = essentialFrom - 1; r >= 0; r--) {
      if (best.rejectsAtMost(doc, partial + prefixBound[r + 1] + slack)) return;
      const t = order[r];
      const p = this.advance(t, doc);
      if (p < termEnd[t] && docs[p] === doc) {
        termContribution[t] = termQw[t] * weights[p];
        termCandidate[t] = doc;
        partial += termContribution[t];
        nonEssentialHit = true;
      }
    }
    // The exact score in increasing query-dimension order, like sparseDot; without a non-essential term it is `partial`.
    let score = partial;
    if (nonEssentialHit) {
      score = 0;
      for (let t = 0; t < n; t++) {
        if (this.termRank[t] < essentialFrom) {
          if (termCandidate[t] === doc) score += termContribution[t];
        } else {
          const p = this.find(docs, this.windowFrom[t], this.termCursor[t], doc);
          if (p >= 0) score += termQw[t] * weights[p];
        }
      }
    }
    best.offer(doc, score);
    this.lastFullyScored++;
  }

  /** Position of `doc` among docs[from..to) (sorted), or -1. */
  private find(docs: Uint32Array, from: number, to: number, doc: number): number {
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (docs[mid] < doc) lo = mid + 1;
      else hi = mid;
    }
    return lo < to && docs[lo] === doc ? lo : -1;
  }

  /** Fills the per-term arrays for the query's dimensions that have postings; returns their number. */
  private prepareTerms(query: SparseVector): number {
    const { offsets, dimension, maxWeights } = this.index;
    this.ensureCapacity(query.indices.length);
    let n = 0;
    for (let i = 0; i < query.indices.length; i++) {
      const j = query.indices[i];
      if (i > 0 && j <= query.indices[i - 1])
        throw new Error(`query indices must be strictly increasing (${query.indices[i - 1]} then ${j})`);
      if (j >= dimension || offsets[j] === offsets[j + 1]) continue;
      const qw = query.values[i];
      this.termQw[n] = qw;
      this.termCursor[n] = offsets[j];
      this.termEnd[n] = offsets[j + 1];
      const atMax = qw * maxWeights[j];
      const atMin = qw * this.minWeights[j];
      this.termBound[n] = Math.max(atMax, atMin);
      this.termAbsBound[n] = Math.max(Math.abs(atMax), Math.abs(atMin));
      this.termCandidate[n] = -1;
      this.order[n] = n;
      n++;
    }
    const bound = this.termBound;
    const order = this.order.subarray(0, n).sort((a, b) => bound[a] - bound[b] || a - b);
    this.prefixBound[0] = 0;
    for (let r = 0; r < n; r++) {
      this.termRank[order[r]] = r;
      this.prefixBound[r + 1] = this.prefixBound[r] + bound[order[r]];
    }
    return n;
  }

  /** The smallest document at the cursors of the first `count` essential terms (Infinity when all are exhausted). */
  private smallestCursorDoc(count: number): number {
    const { docs } = this.index;
    let doc = Infinity;
    for (let e = 0; e < count; e++) {
      const t = this.essential[e];
      if (this.termCursor[t] < this.termEnd[t] && docs[this.termCursor[t]] < doc) doc = docs[this.termCursor[t]];
    }
    return doc;
  }

  /** Moves term t's cursor to its first posting with document >= doc (galloping, then binary search). */
  private advance(t: number, doc: number): number {
    const docs = this.index.docs;
    let lo = this.termCursor[t];
    const end = this.termEnd[t];
    if (lo >= end || docs[lo] >= doc) return lo;
    let step = 1;
    let hi = lo + 1;
    while (hi < end && docs[hi] < doc) {
      lo = hi;
      step *= 2;
      hi = lo + step;
    }
    if (hi > end) hi = end;
    // docs[lo] < doc; docs[hi] >= doc or hi === end
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (docs[mid] < doc) lo = mid;
      else hi = mid;
    }
    this.termCursor[t] = hi;
    return hi;
  }

  private ensureCapacity(n: number): void {
    if (this.termQw.length >= n) return;
    this.termQw = new Float64Array(n);
    this.termCursor = new Uint32Array(n);
    this.termEnd = new Uint32Array(n);
    this.termBound = new Float64Array(n);
    this.termAbsBound = new Float64Array(n);
    this.termContribution = new Float64Array(n);
    this.termCandidate = new Float64Array(n);
    this.order = new Uint32Array(n);
    this.termRank = new Uint32Array(n);
    this.essential = new Uint32Array(n);
    this.windowFrom = new Uint32Array(n);
    this.prefixBound = new Float64Array(n + 1);
  }
}

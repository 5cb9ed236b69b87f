// Bounded selection of the k best (document, score) pairs with a binary min-heap; order: score desc, then document asc.

export interface Ranking {
  docs: Uint32Array; // (n,) document numbers, best first
  scores: Float64Array; // (n,)
}

/** True when (docA, scoreA) ranks strictly after (docB, scoreB). */
function ranksAfter(scoreA: number, docA: number, scoreB: number, docB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && docA > docB);
}

/** Keeps the k best pairs offered; `sorted()` returns them best first. Storage is allocated once per k. */
export class TopK {
  private readonly heapDocs: Uint32Array; // (k,) heap root = the worst kept pair
  private readonly heapScores: Float64Array; // (k,)
  private size = 0;

  constructor(readonly k: number) {
    if (!Number.isInteger(k) || k < 1) throw new Error(`top-k needs a positive integer k, got ${k}`);
    this.heapDocs = new Uint32Array(k);
    this.heapScores = new Float64Array(k);
  }

  clear(): void {
    this.size = 0;
  }

  /** Score a candidate must beat to enter (-Infinity while fewer than k are kept). */
  threshold(): number {
    return this.size < this.k ? -Infinity : this.heapScores[0];
  }

  /**
   * True when `offer` would refuse document `doc` with any score <= `bound`: k pairs are kept and the worst of them
   * ranks ahead of (bound, doc). An equal bound is refused only when the tie-break (smaller document first) refuses it.
   */
  rejectsAtMost(doc: number, bound: number): boolean {
    return this.size === this.k && ranksAfter(bound, doc, this.heapScores[0], this.heapDocs[0]);
  }

  offer(doc: number, score: number): void {
    if (this.size < this.k) {
      this.heapDocs[this.size] = doc;
      this.heapScores[this.size] = score;
      this.siftUp(this.size++);
    } else if (ranksAfter(this.heapScores[0], this.heapDocs[0], score, doc)) {
      this.heapDocs[0] = doc;
      this.heapScores[0] = score;
      this.siftDown(0);
    }
  }

  sorted(): Ranking {
    const order = Array.from({ length: this.size }, (_, i) => i);
    order.sort((a, b) => this.heapScores[b] - this.heapScores[a] || this.heapDocs[a] - this.heapDocs[b]);
    return {
      docs: Uint32Array.from(order, (i) => this.heapDocs[i]),
      scores: Float64Array.from(order, (i) => this.heapScores[i]),
    };
  }

  private worse(i: number, j: number): boolean {
    return ranksAfter(this.heapScores[i], this.heapDocs[i], this.heapScores[j], this.heapDocs[j]);
  }

  private swap(i: number, j: number): void {
    [this.heapDocs[i], this.heapDocs[j]] = [this.heapDocs[j], this.heapDocs[i]];
    [this.heapScores[i], this.heapScores[j]] = [this.heapScores[j], this.heapScores[i]];
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < this.size && this.worse(left, worst)) worst = left;
      if (right < this.size && this.worse(right, worst)) worst = right;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }
}

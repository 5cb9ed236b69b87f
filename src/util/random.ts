// Seeded pseudo-random numbers (mulberry32), so every sample, init and shuffle is reproducible.

export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** n values from N(0, std²). */
  normals(n: number, std = 1): Float64Array {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = std * this.normal();
    return out;
  }

  /** n values uniform in [lo, hi). */
  uniforms(n: number, lo = -1, hi = 1): Float64Array {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = lo + (hi - lo) * this.next();
    return out;
  }
}

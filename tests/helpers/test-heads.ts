// A synthetic MLM head for the head kernels' tests: rows of varied norms sharing a direction.
import { Random } from '../../src/util/random.ts';

/** A head whose rows have varied norms (per-row scale) and a shared direction (some anisotropy). */
export function makeHead(V: number, d: number, seed: number): Float64Array {
  const random = new Random(seed);
  const shared = random.normals(d);
  const W = new Float64Array(V * d);
  for (let v = 0; v < V; v++) {
    const scale = 0.2 + 2 * random.next();
    for (let c = 0; c < d; c++) W[v * d + c] = Math.fround((scale * (random.normal() + 0.5 * shared[c])) / Math.sqrt(d));
  }
  return W;
}

// Inference-free SPLADE's trainable query table: the GPU's query vectors, table gradient and query L1 equal the
// float64 reference on odd shapes (tokens in no query, a query of no token, zero and negative weights), and the
// reference gradient equals finite differences.
import { describe, it } from 'vitest';
import { StaticQueryTable } from '../../../src/kernels/static-query-table.ts';
import { staticTableBackward, staticTableL1, staticTableVectors } from '../../../src/kernels/reference/static-query-table.ts';
import { Random } from '../../../src/util/random.ts';
import { expectKernel } from '../../helpers/expect-kernel.ts';
import { checkGradients } from '../../helpers/gradcheck.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { itOnCpu } from '../../helpers/portable-run.ts';

/** Seeded presence (B, V): about a fifth of the tokens per query; query `empty` holds none. */
function presenceOf(B: number, V: number, seed: number, empty = -1): number[] {
  const random = new Random(seed);
  return Array.from({ length: B * V }, (_, i) => (Math.floor(i / V) !== empty && random.next() < 0.2 ? 1 : 0));
}

/** Seeded weights with exact zeros and negatives among them. */
function weightsOf(V: number, seed: number): number[] {
  const random = new Random(seed);
  return Array.from({ length: V }, (_, v) => (v % 7 === 3 ? 0 : random.normal() * 2));
}

describe('static query table', () => {
  it.each([
    [1, 5, 0],
    [3, 37, 0.3],
    [5, 1031, 0.05],
  ])('B=%i V=%i lambda=%f: vectors, table gradient and L1 equal the float64 reference', async (B, V, lambda) => {
    const ctx = await gpuContext();
    const presence = presenceOf(B, V, B + V, B > 1 ? 1 : -1);
    const weights = weightsOf(V, V);
    const dvectors = Array.from(new Random(3).normals(B * V));
    await expectKernel(ctx, {
      name: `static query table B${B} V${V}`,
      tensors: {
        weights: { shape: [V], data: weights },
        presence: { shape: [B, V], data: presence },
        vectors: { shape: [B, V] },
        dvectors: { shape: [B, V], data: dvectors },
        dweights: { shape: [V], data: new Array(V).fill(0.5) },
        losses: { shape: [3], data: [0, 0, 0] },
      },
      build: (ctx, t) => {
        const table = new StaticQueryTable(ctx, B, V, 1);
        table.setLambda(lambda);
        return {
          record: (enc) => {
            table.vectors(enc, { weights: t.weights, presence: t.presence, vectors: t.vectors });
            table.backward(enc, {
              weights: t.weights,
              presence: t.presence,
              dvectors: t.dvectors,
              dweights: t.dweights,
              losses: t.losses,
            });
          },
        };
      },
      reference: (h) => {
        const dweights = staticTableBackward(h.weights, h.presence, h.dvectors, B, lambda);
        return {
          vectors: staticTableVectors(h.weights, h.presence, B),
          dweights: dweights.map((g) => g + 0.5), // accumulated into
          losses: [0, staticTableL1(h.weights, h.presence, B), 0],
        };
      },
      checks: {
        vectors: { tol: { rtol: 0, atol: 0 } },
        dweights: { tol: { rtol: 1e-5, atol: 1e-6 } },
        losses: { tol: { rtol: 1e-5, atol: 1e-6 } },
      },
    });
  });

  itOnCpu('the reference gradient of <vectors, c> + lambda L1 equals finite differences', () => {
    const B = 3;
    const V = 11;
    const lambda = 0.4;
    const presence = presenceOf(B, V, 5);
    // weights away from 0, where |w| is differentiable
    const weights = Float64Array.from(weightsOf(V, 9), (w) => (Math.abs(w) < 0.1 ? 0.5 : w));
    checkGradients({
      inputs: { weights },
      forward: ({ weights: w }) =>
        Float64Array.from([...staticTableVectors(w, presence, B), lambda * staticTableL1(w, presence, B)]),
      backward: ({ weights: w }, dout) => {
        const dvectors = dout.slice(0, B * V);
        return { weights: staticTableBackward(w, presence, dvectors, B, lambda * dout[B * V]) };
      },
      wrt: ['weights'],
    });
  });
});

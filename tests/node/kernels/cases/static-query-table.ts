// Inference-free SPLADE's trainable query table: the GPU's query vectors, table gradient and query L1 against the
// float64 reference on odd shapes (tokens in no query, a query of no token, zero and negative weights).
import { StaticQueryTable } from '../../../../src/kernels/static-query-table.ts';
import { staticTableBackward, staticTableL1, staticTableVectors } from '../../../../src/kernels/reference/static-query-table.ts';
import { Random } from '../../../../src/util/random.ts';
import type { KernelCase, KernelFamily } from './kernel-case.ts';

/** Seeded presence (B, V): about a fifth of the tokens per query; query `empty` holds none. */
export function presenceOf(B: number, V: number, seed: number, empty = -1): number[] {
  const random = new Random(seed);
  return Array.from({ length: B * V }, (_, i) => (Math.floor(i / V) !== empty && random.next() < 0.2 ? 1 : 0));
}

/** Seeded weights with exact zeros and negatives among them. */
export function weightsOf(V: number, seed: number): number[] {
  const random = new Random(seed);
  return Array.from({ length: V }, (_, v) => (v % 7 === 3 ? 0 : random.normal() * 2));
}

function tableCase(B: number, V: number, lambda: number): KernelCase {
  return {
    name: `B=${B} V=${V} lambda=${lambda}: vectors, table gradient and L1 equal the float64 reference`,
    make: () => {
      const presence = presenceOf(B, V, B + V, B > 1 ? 1 : -1);
      const weights = weightsOf(V, V);
      const dvectors = Array.from(new Random(3).normals(B * V));
      return {
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
      };
    },
  };
}

export const staticQueryTable: KernelFamily = {
  family: 'static-query-table',
  groups: [{ describe: 'static query table', cases: [tableCase(1, 5, 0), tableCase(3, 37, 0.3), tableCase(5, 1031, 0.05)] }],
};

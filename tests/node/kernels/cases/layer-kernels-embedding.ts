// Embedding lookups (word + RoBERTa positions + token types) and their gather backward against
// src/kernels/reference/embedding.ts, with repeated ids and padding rows that receive no gradient.
import { Embedding, EmbeddingGatherPlan } from '../../../../src/kernels/embedding.ts';
import { parseModelConfig } from '../../../../src/model/config.ts';
import { embeddingBackward, embeddingForward } from '../../../../src/kernels/reference/embedding.ts';
import { positionIds } from '../../../../src/model/position-ids.ts';
import { Random } from '../../../../src/util/random.ts';
import type { KernelCase, KernelFamily } from './kernel-case.ts';

// d not a multiple of 4; N = 99 > one workgroup of columns x rows; vocabulary small enough for many repeats.
function lookupCase(B: number, T: number, d: number, V: number): KernelCase {
  return {
    name: `word + position + token-type forward and backward match the reference for B=${B} T=${T} d=${d} V=${V}`,
    make: () => {
      const N = B * T;
      const random = new Random(B * 100 + T);
      const pad = 1;
      const config = parseModelConfig(
        {
          model_type: 'roberta',
          vocab_size: V,
          hidden_size: d,
          num_attention_heads: 1,
          max_position_embeddings: T + 2,
          pad_token_id: pad,
          type_vocab_size: 2,
        },
        { source: 'test config' },
      );
      const ids = Int32Array.from({ length: N }, () => random.int(V));
      for (let b = 0; b < B; b++) if (T > 2) ids.fill(pad, b * T + T - 1 - b, (b + 1) * T); // trailing padding, more per sequence
      const positions = positionIds(config, ids, B, T); // RoBERTa: count from pad + 1, pads keep pad
      const types = Int32Array.from({ length: N }, () => random.int(2));
      const P = config.maxPositions;
      return {
        name: `embeddings B=${B} T=${T} d=${d} V=${V}`,
        tensors: {
          word: { shape: [V, d] },
          position: { shape: [P, d] },
          type: { shape: [2, d] },
          out: { shape: [B, T, d] }, // overwritten by the word lookup
          dout: { shape: [B, T, d] },
          dword: { shape: [V, d] },
          dposition: { shape: [P, d] },
          dtype: { shape: [2, d] },
        },
        build: (ctx, t) => {
          const plan = (rows: number, paddingIdx: number, values: Int32Array, label: string) => {
            const p = new EmbeddingGatherPlan(ctx, N, rows, paddingIdx, label);
            p.set(values);
            return p;
          };
          const plans = {
            word: plan(V, pad, ids, 'word ids'),
            position: plan(P, pad, positions, 'position ids'),
            type: plan(2, -1, types, 'type ids'),
          };
          const kernels = {
            word: new Embedding(ctx, { N, d, rows: V }),
            position: new Embedding(ctx, { N, d, rows: P }),
            type: new Embedding(ctx, { N, d, rows: 2 }),
          };
          return {
            record: (enc) => {
              kernels.word.forward(enc, { out: t.out, table: t.word, ids: plans.word.ids });
              kernels.position.forward(enc, { out: t.out, table: t.position, ids: plans.position.ids, accumulate: true });
              kernels.type.forward(enc, { out: t.out, table: t.type, ids: plans.type.ids, accumulate: true });
              kernels.word.backward(enc, { dtable: t.dword, dout: t.dout, plan: plans.word });
              kernels.position.backward(enc, { dtable: t.dposition, dout: t.dout, plan: plans.position });
              kernels.type.backward(enc, { dtable: t.dtype, dout: t.dout, plan: plans.type });
            },
          };
        },
        reference: (h) => {
          const out = new Float64Array(N * d);
          embeddingForward(out, ids, h.word, N, d, false);
          embeddingForward(out, positions, h.position, N, d, true);
          embeddingForward(out, types, h.type, N, d, true);
          const [dword, dposition, dtype] = [new Float64Array(V * d), new Float64Array(P * d), new Float64Array(2 * d)];
          embeddingBackward(dword, h.dout, ids, N, d, pad);
          embeddingBackward(dposition, h.dout, positions, N, d, pad);
          embeddingBackward(dtype, h.dout, types, N, d, -1);
          return { out, dword, dposition, dtype };
        },
        // Sums of at most N f32 terms: a few ulp.
        checks: {
          out: { tol: { rtol: 1e-6, atol: 1e-6 } },
          dword: { tol: { rtol: 1e-6, atol: 1e-5 }, accumulates: true },
          dposition: { tol: { rtol: 1e-6, atol: 1e-5 }, accumulates: true },
          dtype: { tol: { rtol: 1e-6, atol: 1e-5 }, accumulates: true },
        },
      };
    },
  };
}

// A word table bound in three row parts (4, 5 and V - 9 rows): the same lookups and gradients as the whole table.
function rowPartsCase(): KernelCase {
  return {
    name: "a table in row parts gives the whole table's forward (overwriting or adding) and backward",
    make: () => {
      const [B, T, d, V] = [2, 9, 5, 23];
      const N = B * T;
      const random = new Random(77);
      const ids = Int32Array.from({ length: N }, () => random.int(V));
      ids[0] = 0;
      ids[1] = V - 1;
      ids[2] = 4; // the first row of the second part
      const splits = [0, 4, 9, V];
      return {
        name: 'embedding in row parts',
        tensors: {
          w0: { shape: [4, d] },
          w1: { shape: [5, d] },
          w2: { shape: [V - 9, d] },
          position: { shape: [T, d] },
          out: { shape: [B, T, d] },
          dout: { shape: [B, T, d] },
          dw0: { shape: [4, d] },
          dw1: { shape: [5, d] },
          dw2: { shape: [V - 9, d] },
        },
        build: (ctx, t) => {
          const plan = new EmbeddingGatherPlan(ctx, N, V, 3, 'word ids');
          plan.set(ids);
          const positions = new EmbeddingGatherPlan(ctx, N, T, -1, 'position ids');
          positions.set(Int32Array.from({ length: N }, (_, n) => n % T));
          const word = new Embedding(ctx, {
            N,
            d,
            rows: V,
            parts: [0, 1, 2].map((k) => ({ row0: splits[k], rows: splits[k + 1] - splits[k] })),
          });
          const position = new Embedding(ctx, { N, d, rows: T });
          const parts = (a: typeof t.w0, b: typeof t.w0, c: typeof t.w0) =>
            [a, b, c].map((tensor, k) => ({ row0: splits[k], tensor }));
          return {
            record: (enc) => {
              // positions first, then the word parts add onto them
              position.forward(enc, { out: t.out, table: t.position, ids: positions.ids });
              word.forward(enc, { out: t.out, table: parts(t.w0, t.w1, t.w2), ids: plan.ids, accumulate: true });
              word.backward(enc, { dtable: parts(t.dw0, t.dw1, t.dw2), dout: t.dout, plan });
            },
          };
        },
        reference: (h) => {
          const whole = new Float64Array(V * d);
          [h.w0, h.w1, h.w2].forEach((w, k) => whole.set(w, splits[k] * d));
          const out = new Float64Array(N * d);
          embeddingForward(
            out,
            Int32Array.from({ length: N }, (_, n) => n % T),
            h.position,
            N,
            d,
            false,
          );
          embeddingForward(out, ids, whole, N, d, true);
          const dwhole = new Float64Array(V * d);
          embeddingBackward(dwhole, h.dout, ids, N, d, 3);
          return { out, dw0: dwhole.slice(0, 4 * d), dw1: dwhole.slice(4 * d, 9 * d), dw2: dwhole.slice(9 * d) };
        },
        checks: {
          out: { tol: { rtol: 1e-6, atol: 1e-6 } },
          dw0: { tol: { rtol: 1e-6, atol: 1e-5 }, accumulates: true },
          dw1: { tol: { rtol: 1e-6, atol: 1e-5 }, accumulates: true },
          dw2: { tol: { rtol: 1e-6, atol: 1e-5 }, accumulates: true },
        },
      };
    },
  };
}

export const layerKernelsEmbedding: KernelFamily = {
  family: 'layer-kernels-embedding',
  groups: [
    {
      describe: 'embedding kernels',
      cases: [lookupCase(1, 1, 3, 6), lookupCase(2, 7, 5, 11), lookupCase(3, 33, 7, 40), rowPartsCase()],
    },
  ],
};

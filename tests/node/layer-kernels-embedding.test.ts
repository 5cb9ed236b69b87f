// Embedding lookups (word + RoBERTa positions + token types) and their gather backward against
// src/kernels/reference/embedding.ts, with repeated ids and padding rows that receive no gradient.
import { describe, expect, it } from 'vitest';
import { buildGatherPlan, Embedding, EmbeddingGatherPlan, NO_ROW } from '../../src/kernels/embedding.ts';
import { parseModelConfig } from '../../src/model/config.ts';
import { embeddingBackward, embeddingForward } from '../../src/kernels/reference/embedding.ts';
import { positionIds } from '../../src/model/reference/embeddings.ts';
import { Random } from '../../src/util/random.ts';
import { expectClose } from '../helpers/compare.ts';
import { gpuContext } from '../helpers/gpu.ts';

const f32 = (a: Float64Array) => a.map(Math.fround);

describe('embedding kernels', () => {
  it('builds a gather plan: rows ascending, positions ascending per row, padding left out', () => {
    const plan = buildGatherPlan([3, 1, 3, 0, 1, 3], 5, 0);
    expect([...plan.rows]).toEqual([1, 3, NO_ROW, NO_ROW, NO_ROW, NO_ROW]);
    expect([...plan.offsets]).toEqual([0, 2, 5, 5, 5, 5, 5]);
    expect([...plan.positions.slice(0, 5)]).toEqual([1, 4, 0, 2, 5]);
    expect(() => buildGatherPlan([0, 5], 5)).toThrow(/id 5 at flat position 1/);
  });

  // d not a multiple of 4; N = 99 > one workgroup of columns x rows; vocabulary small enough for many repeats.
  it.each([
    [1, 1, 3, 6],
    [2, 7, 5, 11],
    [3, 33, 7, 40],
  ])('word + position + token-type forward and backward match the reference for B=%i T=%i d=%i V=%i', async (B, T, d, V) => {
    const ctx = await gpuContext();
    const N = B * T;
    const random = new Random(B * 100 + T);
    const pad = 1;
    const config = parseModelConfig(
      { model_type: 'roberta', vocab_size: V, hidden_size: d, num_attention_heads: 1, max_position_embeddings: T + 2, pad_token_id: pad, type_vocab_size: 2 },
      { source: 'test config' },
    );
    const ids = Int32Array.from({ length: N }, () => random.int(V));
    for (let b = 0; b < B; b++) if (T > 2) ids.fill(pad, b * T + T - 1 - b, (b + 1) * T); // trailing padding, more per sequence
    const positions = positionIds(config, ids, B, T); // RoBERTa: count from pad + 1, pads keep pad
    const types = Int32Array.from({ length: N }, () => random.int(2));
    const P = config.maxPositions;
    const word = f32(random.normals(V * d));
    const position = f32(random.normals(P * d));
    const type = f32(random.normals(2 * d));
    const dout = f32(random.normals(N * d));
    const [dword0, dposition0, dtype0] = [f32(random.normals(V * d)), f32(random.normals(P * d)), f32(random.normals(2 * d))];

    const out = new Float64Array(N * d);
    embeddingForward(out, ids, word, N, d, false);
    embeddingForward(out, positions, position, N, d, true);
    embeddingForward(out, types, type, N, d, true);
    const [dword, dposition, dtype] = [dword0.slice(), dposition0.slice(), dtype0.slice()];
    embeddingBackward(dword, dout, ids, N, d, pad);
    embeddingBackward(dposition, dout, positions, N, d, pad);
    embeddingBackward(dtype, dout, types, N, d, -1);

    const plans = {
      word: new EmbeddingGatherPlan(ctx, N, V, pad, 'word ids'),
      position: new EmbeddingGatherPlan(ctx, N, P, pad, 'position ids'),
      type: new EmbeddingGatherPlan(ctx, N, 2, -1, 'type ids'),
    };
    plans.word.set(ids);
    plans.position.set(positions);
    plans.type.set(types);
    const kernels = { word: new Embedding(ctx, { N, d, rows: V }), position: new Embedding(ctx, { N, d, rows: P }), type: new Embedding(ctx, { N, d, rows: 2 }) };
    const t = {
      word: ctx.tensor('word', [V, d], 'f32', word),
      position: ctx.tensor('position', [P, d], 'f32', position),
      type: ctx.tensor('type', [2, d], 'f32', type),
      out: ctx.tensor('out', [B, T, d], 'f32', random.normals(N * d)), // overwritten by the word lookup
      dout: ctx.tensor('dout', [B, T, d], 'f32', dout),
      dword: ctx.tensor('dword', [V, d], 'f32', dword0),
      dposition: ctx.tensor('dposition', [P, d], 'f32', dposition0),
      dtype: ctx.tensor('dtype', [2, d], 'f32', dtype0),
    };
    await ctx.run('embeddings', (enc) => {
      kernels.word.forward(enc, { out: t.out, table: t.word, ids: plans.word.ids });
      kernels.position.forward(enc, { out: t.out, table: t.position, ids: plans.position.ids, accumulate: true });
      kernels.type.forward(enc, { out: t.out, table: t.type, ids: plans.type.ids, accumulate: true });
      kernels.word.backward(enc, { dtable: t.dword, dout: t.dout, plan: plans.word });
      kernels.position.backward(enc, { dtable: t.dposition, dout: t.dout, plan: plans.position });
      kernels.type.backward(enc, { dtable: t.dtype, dout: t.dout, plan: plans.type });
    });
    // Sums of at most N f32 terms: a few ulp.
    expectClose('out', await ctx.read(t.out), out, { rtol: 1e-6, atol: 1e-6 });
    expectClose('dword', await ctx.read(t.dword), dword, { rtol: 1e-6, atol: 1e-5 });
    expectClose('dposition', await ctx.read(t.dposition), dposition, { rtol: 1e-6, atol: 1e-5 });
    expectClose('dtype', await ctx.read(t.dtype), dtype, { rtol: 1e-6, atol: 1e-5 });
  });
});

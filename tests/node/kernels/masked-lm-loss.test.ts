// Masked-LM loss: the float64 reference against finite differences, then the GPU kernel against the reference on odd
// shapes (V not a multiple of anything, rows without labels, every label in one row, none at all, large logits, the
// decoder in row parts), gradients added into what is there.
import { describe, expect, it } from 'vitest';
import type { GpuContext } from '../../../src/gpu/context.ts';
import type { Tensor } from '../../../src/gpu/tensor.ts';
import { MaskedLmLoss } from '../../../src/kernels/masked-lm-loss.ts';
import {
  IGNORED_LABEL,
  maskedLmLossBackward,
  maskedLmLossForward,
  type MaskedLmShape,
} from '../../../src/kernels/reference/masked-lm-loss.ts';
import { Random } from '../../../src/util/random.ts';
import { expectClose } from '../../helpers/compare.ts';
import { checkGradients } from '../../helpers/gradcheck.ts';
import { gpuContext } from '../../helpers/gpu.ts';

interface Case {
  B: number;
  T: number;
  d: number;
  V: number;
  /** Which positions carry a label. */
  labelled: (b: number, t: number) => boolean;
  /** Multiplies the hidden states (logits of about ±this x 3). */
  scale?: number;
  /** Row counts of the decoder's parts (default: whole). */
  parts?: number[];
}

function inputs(c: Case, seed: number) {
  const random = new Random(seed);
  const N = c.B * c.T;
  const hidden = random.normals(N * c.d, c.scale ?? 1);
  const W = random.normals(c.V * c.d, 1 / Math.sqrt(c.d));
  const b = random.normals(c.V, 0.1);
  const labels = new Int32Array(N);
  for (let b0 = 0; b0 < c.B; b0++)
    for (let t = 0; t < c.T; t++) labels[b0 * c.T + t] = c.labelled(b0, t) ? random.int(c.V) : IGNORED_LABEL;
  return { hidden, W, b, labels, shape: { N, d: c.d, V: c.V } as MaskedLmShape };
}

/** Runs forward and backward twice into gradients that start at `start`; returns the loss and the gradients. */
async function onGpu(ctx: GpuContext, c: Case, x: ReturnType<typeof inputs>, start: number) {
  const { B, T, d, V } = c;
  const rows = c.parts ?? [V];
  const parts = rows.map((n, k) => ({ row0: rows.slice(0, k).reduce((a, m) => a + m, 0), rows: n }));
  const slice = (data: Float64Array, p: { row0: number; rows: number }) => data.subarray(p.row0 * d, (p.row0 + p.rows) * d);
  const weight = parts.map((p) => ({ row0: p.row0, tensor: ctx.tensor('w', [p.rows, d], 'f32', slice(x.W, p)) }));
  const dweight = parts.map((p) => ({
    row0: p.row0,
    tensor: ctx.tensor('dw', [p.rows, d], 'f32', new Float64Array(p.rows * d).fill(start)),
  }));
  const hidden = ctx.tensor('h', [B, T, d], 'f32', x.hidden);
  const dhidden = ctx.tensor('dh', [B, T, d], 'f32', new Float64Array(B * T * d).fill(start));
  const bias = ctx.tensor('b', [V], 'f32', x.b);
  const dbias = ctx.tensor('db', [V], 'f32', new Float64Array(V).fill(start));
  const labels = ctx.tensor('labels', [B, T], 'i32', x.labels);
  const losses = ctx.tensor('losses', [2], 'f32');
  const loss = new MaskedLmLoss(ctx, { B, T, d, V, parts }, 1);
  const args = { hidden, labels, weight: parts.length > 1 ? weight : weight[0].tensor, bias, losses, dhidden, dbias };
  await ctx.run('masked-LM loss twice', (encoder) => {
    loss.forwardBackward(encoder, { ...args, dweight: parts.length > 1 ? dweight : dweight[0].tensor });
    loss.forwardBackward(encoder, { ...args, dweight: parts.length > 1 ? dweight : dweight[0].tensor });
  });
  const read = async (t: Tensor) => Float64Array.from(await ctx.read(t));
  const dw = new Float64Array(V * d);
  for (const p of dweight) dw.set(await read(p.tensor), p.row0 * d);
  return {
    loss: (await ctx.read(losses))[1],
    counts: await loss.readCounts(),
    dhidden: await read(dhidden),
    dweight: dw,
    dbias: await read(dbias),
  };
}

const CASES: [string, Case][] = [
  ['V = 97, some positions labelled', { B: 3, T: 5, d: 8, V: 97, labelled: (b, t) => (b + t) % 3 === 0 }],
  ['V = 1031, d = 12, a row without labels', { B: 2, T: 7, d: 12, V: 1031, labelled: (b, t) => b === 1 && t % 2 === 0 }],
  ['every label in one row', { B: 4, T: 3, d: 4, V: 50, labelled: (b) => b === 2 }],
  ['every position labelled, d = 70 (over one lane per component)', { B: 2, T: 3, d: 70, V: 130, labelled: () => true }],
  ['logits of about ±80 (online log-sum-exp)', { B: 2, T: 4, d: 8, V: 211, labelled: (_, t) => t < 3, scale: 30 }],
  ['decoder in three row parts', { B: 2, T: 6, d: 8, V: 301, labelled: (b, t) => t % 2 === b, parts: [100, 150, 51] }],
];

describe('masked-LM loss', () => {
  it('the reference gradient equals finite differences', () => {
    const x = inputs({ B: 2, T: 3, d: 4, V: 9, labelled: (b, t) => t !== b }, 3);
    checkGradients({
      inputs: { hidden: x.hidden, W: x.W, b: x.b },
      forward: ({ hidden, W, b }) => Float64Array.of(maskedLmLossForward(hidden, W, b, x.labels, x.shape)),
      backward: ({ hidden, W, b }, dout) => {
        const g = maskedLmLossBackward(hidden, W, b, x.labels, x.shape, dout[0]);
        return { hidden: g.dhidden, W: g.dweight, b: g.dbias };
      },
      wrt: ['hidden', 'W', 'b'],
    });
  });

  it.each(CASES)('GPU equals the reference: %s', async (_, c) => {
    const ctx = await gpuContext();
    const x = inputs(c, c.V + c.d);
    const got = await onGpu(ctx, c, x, 0.25);
    const expected = maskedLmLossForward(x.hidden, x.W, x.b, x.labels, x.shape);
    const grads = maskedLmLossBackward(x.hidden, x.W, x.b, x.labels, x.shape);
    expect(got.loss).toBeCloseTo(expected, 4);
    expect(got.counts.predicted).toBe(x.labels.filter((l) => l !== IGNORED_LABEL).length);
    const twice = (g: Float64Array) => g.map((v) => 0.25 + 2 * v);
    const largest = (g: Float64Array) => g.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    for (const [name, value, reference] of [
      ['dhidden', got.dhidden, grads.dhidden],
      ['dweight', got.dweight, grads.dweight],
      ['dbias', got.dbias, grads.dbias],
    ] as const) {
      expectClose(`${name}`, value, twice(reference), { rtol: 1e-3, atol: 1e-6 + 1e-4 * largest(reference) });
    }
  });

  it('no label at all: loss 0, no gradient, nothing NaN', async () => {
    const c: Case = { B: 2, T: 3, d: 4, V: 33, labelled: () => false };
    const got = await onGpu(await gpuContext(), c, inputs(c, 5), 0);
    expect(got.loss).toBe(0);
    expect(got.counts.predicted).toBe(0);
    for (const g of [got.dhidden, got.dweight, got.dbias]) expect(g.every((v) => v === 0)).toBe(true);
  });

  it('counts the positions whose highest logit is the label', async () => {
    const c: Case = { B: 1, T: 4, d: 4, V: 17, labelled: () => true, parts: [8, 9] };
    const x = inputs(c, 9);
    // make the label the best logit at positions 0 and 2: its row the longest, the hidden state along it
    for (const pos of [0, 2]) {
      const label = x.labels[pos];
      for (let j = 0; j < 4; j++) {
        x.W[label * 4 + j] *= 6;
        x.hidden[pos * 4 + j] = 10 * x.W[label * 4 + j];
      }
    }
    const got = await onGpu(await gpuContext(), c, x, 0);
    let right = 0;
    for (let pos = 0; pos < 4; pos++) {
      let best = 0;
      let bestLogit = -Infinity;
      for (let v = 0; v < 17; v++) {
        let logit = x.b[v];
        for (let j = 0; j < 4; j++) logit += x.hidden[pos * 4 + j] * x.W[v * 4 + j];
        if (logit > bestLogit) [best, bestLogit] = [v, logit];
      }
      if (best === x.labels[pos]) right++;
    }
    expect(right).toBeGreaterThanOrEqual(2);
    expect(got.counts.correct).toBe(right);
  });
});

// Masked-LM loss: the float64 reference against finite differences, then the GPU kernel against the reference through
// the shared kernel helper (gradients added into what is there, bit-identical repeats, nothing allocated while running)
// on odd shapes, rows without labels, no label at all, large logits, the decoder in row parts, the dispatch budget.
import { describe, expect, it } from 'vitest';
import type { GpuContext } from '../../../src/gpu/context.ts';
import { MaskedLmLoss, type MaskedLmLossTuning } from '../../../src/kernels/masked-lm-loss.ts';
import {
  IGNORED_LABEL,
  maskedLmLossBackward,
  maskedLmLossForward,
  maskedLmPredictions,
  type MaskedLmShape,
} from '../../../src/kernels/reference/masked-lm-loss.ts';
import { Random } from '../../../src/util/random.ts';
import { EXACT, type Tolerance } from '../../helpers/allclose.ts';
import type { KernelTensor, TensorCheck } from '../../helpers/check-kernel.ts';
import { expectKernel } from '../../helpers/expect-kernel.ts';
import { checkGradients } from '../../helpers/gradcheck.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { itOnCpu } from '../../helpers/portable-run.ts';

interface Case {
  B: number;
  T: number;
  d: number;
  V: number;
  /** Which positions carry a label (the first labelled one gets id 0, the last id V - 1, the others random ids). */
  labelled: (b: number, t: number) => boolean;
  /** Standard deviation of the hidden states (logits of about ±3 x this). Default 1. */
  spread?: number;
  /** Row counts of the decoder's parts. Default: one, the whole matrix. */
  parts?: number[];
  /** The gradients asked for. Default both: the encoder's (dhidden) and the decoder's (dweight, dbias). */
  trains?: 'both' | 'encoder' | 'decoder';
  /** setScale's weight of the loss. Default 1. */
  scale?: number;
  /** forwardBackward calls recorded into one encoder (each adds its gradients). Default 1. */
  calls?: number;
  tuning?: Partial<MaskedLmLossTuning>;
  /** Positions made right: their label's decoder row lengthened, their hidden state along it. */
  rightAt?: number[];
}

/** The loss's slot in a losses tensor of 3 (the other two must keep their contents). */
const SLOT = 1;

function inputs(c: Case, seed: number) {
  const random = new Random(seed);
  const N = c.B * c.T;
  const labels = new Int32Array(N).fill(IGNORED_LABEL);
  const at: number[] = [];
  for (let b = 0; b < c.B; b++) for (let t = 0; t < c.T; t++) if (c.labelled(b, t)) at.push(b * c.T + t);
  for (const pos of at) labels[pos] = random.int(c.V);
  if (at.length) [labels[at[0]], labels[at[at.length - 1]]] = [0, c.V - 1];
  const hidden = random.normals(N * c.d, c.spread ?? 1);
  const W = random.normals(c.V * c.d, 1 / Math.sqrt(c.d));
  for (const pos of c.rightAt ?? []) {
    for (let j = 0; j < c.d; j++) {
      W[labels[pos] * c.d + j] *= 6;
      hidden[pos * c.d + j] = 10 * W[labels[pos] * c.d + j];
    }
  }
  const f32 = (x: Float64Array) => Float64Array.from(Float32Array.from(x));
  return {
    hidden: f32(hidden),
    W: f32(W),
    b: f32(random.normals(c.V, 0.1)),
    labels,
    shape: { N, d: c.d, V: c.V } as MaskedLmShape,
  };
}

/** Row ranges of the case's decoder parts. */
function partsOf(c: Case): { row0: number; rows: number }[] {
  let row0 = 0;
  return (c.parts ?? [c.V]).map((rows) => ({ row0: (row0 += rows) - rows, rows }));
}

/** Everything the kernel gives for the case, from the float64 reference: its checked tensors and host values. */
function expected(c: Case, x: ReturnType<typeof inputs>, losses: Float64Array): Record<string, Float64Array> {
  const calls = c.calls ?? 1;
  const g = maskedLmLossBackward(x.hidden, x.W, x.b, x.labels, x.shape, (c.scale ?? 1) * calls);
  const p = maskedLmPredictions(x.hidden, x.W, x.b, x.labels, x.shape);
  const out: Record<string, Float64Array> = {
    losses: Float64Array.from(losses, (v, i) => (i === SLOT ? maskedLmLossForward(x.hidden, x.W, x.b, x.labels, x.shape) : v)),
    counts: Float64Array.of(p.predicted, p.correct),
    largest: Float64Array.of(p.meanLargestLogit),
  };
  if (c.trains !== 'decoder') out.dhidden = g.dhidden;
  if (c.trains !== 'encoder') {
    out.dbias = g.dbias;
    partsOf(c).forEach((p, k) => (out[`dweight${k}`] = g.dweight.slice(p.row0 * c.d, (p.row0 + p.rows) * c.d)));
  }
  return out;
}

/** Within f32 rounding of sums over the vocabulary and the positions: rtol, and atol at 1e-4 of the largest value. */
function tolerance(values: Float64Array): Tolerance {
  const largest = values.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  return { rtol: 1e-3, atol: 1e-6 + 1e-4 * largest };
}

async function checkCase(ctx: GpuContext, name: string, c: Case): Promise<Record<string, Float64Array>> {
  const { B, T, d, V } = c;
  const seed = V * 31 + d;
  const x = inputs(c, seed);
  const parts = partsOf(c);
  const trainsEncoder = c.trains !== 'decoder';
  const trainsDecoder = c.trains !== 'encoder';
  const losses = Float64Array.from(Float32Array.of(0.5, -2, 7));
  const tensors: Record<string, KernelTensor> = {
    hidden: { shape: [B, T, d], data: x.hidden },
    labels: { shape: [B, T], dtype: 'i32', data: x.labels },
    bias: { shape: [V], data: x.b },
    losses: { shape: [3], data: losses },
  };
  parts.forEach(
    (p, k) => (tensors[`weight${k}`] = { shape: [p.rows, d], data: x.W.subarray(p.row0 * d, (p.row0 + p.rows) * d) }),
  );
  // gradients start at seeded values (the helper's): the kernel must add to them
  if (trainsEncoder) tensors.dhidden = { shape: [B, T, d] };
  if (trainsDecoder) {
    tensors.dbias = { shape: [V] };
    parts.forEach((p, k) => (tensors[`dweight${k}`] = { shape: [p.rows, d] }));
  }
  const want = expected(c, x, losses);
  const checks: Record<string, TensorCheck> = {
    losses: { tol: { rtol: 1e-5, atol: 1e-5 } },
    counts: { tol: EXACT },
    largest: { tol: { rtol: 1e-5, atol: 1e-5 } },
  };
  for (const grad of Object.keys(want).filter((key) => key.startsWith('d')))
    checks[grad] = { accumulates: true, tol: tolerance(want[grad]) };
  const report = await expectKernel(ctx, {
    name: `masked-LM loss ${name}`,
    seed,
    tensors,
    build: (ctx, t) => {
      const loss = new MaskedLmLoss(ctx, { B, T, d, V, parts }, SLOT, c.tuning);
      if (c.scale !== undefined) loss.setScale(c.scale);
      const rowParted = (prefix: string) =>
        parts.length > 1 ? parts.map((p, k) => ({ row0: p.row0, tensor: t[`${prefix}${k}`] })) : t[`${prefix}0`];
      const args = {
        hidden: t.hidden,
        labels: t.labels,
        weight: rowParted('weight'),
        bias: t.bias,
        losses: t.losses,
        ...(trainsEncoder ? { dhidden: t.dhidden } : {}),
        ...(trainsDecoder ? { dweight: rowParted('dweight'), dbias: t.dbias } : {}),
      };
      return {
        run: async () => {
          await ctx.run(name, (encoder) => {
            for (let call = 0; call < (c.calls ?? 1); call++) loss.forwardBackward(encoder, args);
          });
          const counts = await loss.readCounts();
          return { counts: [counts.predicted, counts.correct], largest: [counts.meanLargestLogit] };
        },
      };
    },
    reference: () => want,
    checks,
  });
  return report.gpu;
}

const CASES: [string, Case][] = [
  ['B = T = d = 1, V = 3', { B: 1, T: 1, d: 1, V: 3, labelled: () => true }],
  ['V = 97, d = 8, every third position labelled', { B: 3, T: 5, d: 8, V: 97, labelled: (b, t) => (b + t) % 3 === 0 }],
  ['V = 1031, d = 12, a sequence without labels', { B: 2, T: 7, d: 12, V: 1031, labelled: (b, t) => b === 1 && t % 2 === 0 }],
  ['d = 7, every label in one sequence', { B: 4, T: 3, d: 7, V: 50, labelled: (b) => b === 2 }],
  ['d = 129 (over two components per lane), every position labelled', { B: 2, T: 3, d: 129, V: 130, labelled: () => true }],
  [
    '130 positions, 112 labelled (over a workgroup of them), V = 257, d = 5',
    { B: 5, T: 26, d: 5, V: 257, labelled: (b, t) => (b * 26 + t) % 7 !== 3 },
  ],
  ['logits of about ±80 (the online log-sum-exp)', { B: 2, T: 4, d: 8, V: 211, labelled: (_, t) => t < 3, spread: 30 }],
  ['decoder in three row parts', { B: 2, T: 6, d: 9, V: 301, labelled: (b, t) => t % 2 === b, parts: [100, 150, 51] }],
  [
    'scale 0.5, recorded twice: twice the gradients',
    { B: 2, T: 4, d: 6, V: 77, labelled: (_, t) => t !== 1, scale: 0.5, calls: 2 },
  ],
  ['frozen decoder: dhidden only', { B: 2, T: 3, d: 5, V: 40, labelled: (b, t) => b + t > 0, trains: 'encoder' }],
  [
    'frozen encoder: dweight and dbias only',
    { B: 2, T: 3, d: 5, V: 40, labelled: (b, t) => b + t > 0, trains: 'decoder', parts: [13, 27] },
  ],
];

describe('masked-LM loss', () => {
  itOnCpu('the reference gradient equals finite differences', () => {
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

  it.each(CASES)('GPU equals the reference: %s', async (name, c) => {
    await checkCase(await gpuContext(), name, c);
  });

  it('logits past f32 exp range (highest over 89 on average) stay finite and exact: the running max', async () => {
    const c: Case = { B: 2, T: 4, d: 8, V: 211, labelled: (_, t) => t !== 2, spread: 100 };
    const gpu = await checkCase(await gpuContext(), 'logits of hundreds', c);
    expect(gpu.largest[0]).toBeGreaterThan(89);
  });

  it('no label at all: loss 0, gradients untouched, nothing NaN', async () => {
    const gpu = await checkCase(await gpuContext(), 'no label', { B: 2, T: 3, d: 4, V: 33, labelled: () => false });
    expect(gpu.losses[SLOT]).toBe(0);
    expect([...gpu.counts, ...gpu.largest]).toEqual([0, 0, 0]);
  });

  it('counts the positions whose highest logit is the label', async () => {
    // the decoder in two parts; positions 0 (label 0, the first part's) and 5 (label V - 1, the second's) made right
    const c: Case = { B: 1, T: 6, d: 4, V: 17, labelled: () => true, parts: [8, 9], rightAt: [0, 2, 5] };
    const gpu = await checkCase(await gpuContext(), 'accuracy', c);
    expect(gpu.counts[0]).toBe(6);
    expect(gpu.counts[1]).toBeGreaterThanOrEqual(3);
  });

  it('the vocabulary walked in chunks of 17 ids across two row parts (the online log-sum-exp across chunks)', async () => {
    const ctx = await gpuContext();
    const c: Case = { B: 3, T: 5, d: 6, V: 203, labelled: (b, t) => t !== b, parts: [120, 83], tuning: { chunkColumns: 17 } };
    expect(new MaskedLmLoss(ctx, { B: 3, T: 5, d: 6, V: 203, parts: partsOf(c) }, SLOT, c.tuning).chunkCount).toBe(8 + 5);
    await checkCase(ctx, 'chunked', c);
    await checkCase(ctx, 'chunked, small dispatch budget', { ...c, tuning: { chunkColumns: 17, maxDispatchFlops: 500 } });
  });

  it('rejects operands of the wrong shape, decoders in other parts and rows wider than the kernel caches', async () => {
    const ctx = await gpuContext();
    const t = (label: string, shape: number[], dtype: 'f32' | 'i32' = 'f32') => ctx.tensor(label, shape, dtype);
    const loss = new MaskedLmLoss(ctx, { B: 2, T: 3, d: 4, V: 10 }, 0);
    const args = {
      hidden: t('hidden', [2, 3, 4]),
      labels: t('labels', [2, 3], 'i32'),
      weight: t('weight', [10, 4]),
      bias: t('bias', [10]),
      losses: t('losses', [1]),
    };
    const enc = ctx.encoder('bad');
    expect(() => loss.forwardBackward(enc, { ...args, labels: t('labels', [2, 3]) })).toThrow(/labels must be \[2x3\]:i32/);
    expect(() => loss.forwardBackward(enc, { ...args, hidden: t('hidden', [2, 3, 5]) })).toThrow(/hidden must be \[2x3x4\]/);
    const parted = [
      { row0: 0, tensor: t('w0', [4, 4]) },
      { row0: 4, tensor: t('w1', [6, 4]) },
    ];
    expect(() => loss.forwardBackward(enc, { ...args, weight: parted })).toThrow(/row parts differ/);
    expect(() => loss.forwardBackward(enc, { ...args, dweight: t('dweight', [10, 4]) })).toThrow(/dweight and dbias together/);
    expect(() => new MaskedLmLoss(ctx, { B: 2, T: 3, d: 4, V: 10 }, 1).forwardBackward(enc, args)).toThrow(/no slot 1/);
    expect(() => new MaskedLmLoss(ctx, { B: 1, T: 1, d: 1025, V: 3 }, 0)).toThrow(/width 1025/);
    expect(() => new MaskedLmLoss(ctx, { B: 1, T: 1, d: 4, V: 10, parts: [{ row0: 0, rows: 4 }] }, 0)).toThrow(/expected V = 10/);
  });
});

// Masked-LM loss: the GPU kernel against the float64 reference on odd shapes, rows without labels, no label at all,
// large logits, the decoder in row parts (gradients added into what is there).
import { MaskedLmLoss, type MaskedLmLossTuning } from '../../../../src/kernels/masked-lm-loss.ts';
import {
  IGNORED_LABEL,
  maskedLmLossBackward,
  maskedLmLossForward,
  maskedLmPredictions,
  type MaskedLmShape,
} from '../../../../src/kernels/reference/masked-lm-loss.ts';
import { Random } from '../../../../src/util/random.ts';
import { EXACT, type Tolerance } from '../../../helpers/allclose.ts';
import type { KernelTensor, KernelTest, TensorCheck } from '../../../helpers/check-kernel.ts';
import type { KernelCase, KernelFamily } from './kernel-case.ts';

export interface Case {
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
export const SLOT = 1;

export function inputs(c: Case, seed: number) {
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
export function partsOf(c: Case): { row0: number; rows: number }[] {
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

/** The kernel test of one case: every tensor and host value the kernel gives, against the float64 reference. */
export function maskedLmTest(name: string, c: Case): KernelTest {
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
  return {
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
  };
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

/** A case whose further checks read what the kernel gave. */
function maskedLmCase(test: string, name: string, c: Case, then?: KernelCase['then']): KernelCase {
  return { name: test, make: () => maskedLmTest(name, c), then };
}

export const maskedLmLoss: KernelFamily = {
  family: 'masked-lm-loss',
  groups: [
    {
      describe: 'masked-LM loss',
      cases: [
        ...CASES.map(([name, c]) => maskedLmCase(`GPU equals the reference: ${name}`, name, c)),
        maskedLmCase(
          'logits past f32 exp range (highest over 89 on average) stay finite and exact: the running max',
          'logits of hundreds',
          { B: 2, T: 4, d: 8, V: 211, labelled: (_, t) => t !== 2, spread: 100 },
          ({ gpu }, expect) => expect(gpu.largest[0]).toBeGreaterThan(89),
        ),
        maskedLmCase(
          'no label at all: loss 0, gradients untouched, nothing NaN',
          'no label',
          { B: 2, T: 3, d: 4, V: 33, labelled: () => false },
          ({ gpu }, expect) => {
            expect(gpu.losses[SLOT]).toBe(0);
            expect([...gpu.counts, ...gpu.largest]).toEqual([0, 0, 0]);
          },
        ),
        // the decoder in two parts; positions 0 (label 0, the first part's) and 5 (label V - 1, the second's) made right
        maskedLmCase(
          'counts the positions whose highest logit is the label',
          'accuracy',
          { B: 1, T: 6, d: 4, V: 17, labelled: () => true, parts: [8, 9], rightAt: [0, 2, 5] },
          ({ gpu }, expect) => {
            expect(gpu.counts[0]).toBe(6);
            expect(gpu.counts[1]).toBeGreaterThanOrEqual(3);
          },
        ),
      ],
    },
  ],
};

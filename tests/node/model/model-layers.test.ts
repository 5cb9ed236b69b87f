// Float64 layer references: erf/GELU values, and every layer's backward against central finite differences
// on odd shapes (T = 1 and 7, odd widths, padding present).
import { describe, expect, it } from 'vitest';
import { checkGradients } from '../../helpers/gradcheck.ts';
import { expectClose } from '../../helpers/compare.ts';
import { Random } from '../../../src/util/random.ts';
import {
  erf,
  erfc,
  gelu,
  geluDerivative,
  gegluBackward,
  gegluForward,
  geluBackward,
  geluForward,
} from '../../../src/kernels/reference/activations.ts';
import { linearBackward, linearForward } from '../../../src/model/reference/linear.ts';
import { layerNormBackward, layerNormForward } from '../../../src/kernels/reference/layernorm.ts';
import { embeddingBackward, embeddingForward } from '../../../src/kernels/reference/embedding.ts';
import {
  attentionBackward,
  attentionForward,
  ropeBackward,
  ropeForward,
  ropeTable,
} from '../../../src/kernels/reference/attention.ts';
import { spladePoolBackward, spladePoolForward } from '../../../src/model/reference/splade.ts';

const random = new Random(11);

/** (B, T) mask with the given real lengths, right-padded. */
function paddedMask(T: number, lengths: number[]): Uint8Array {
  const mask = new Uint8Array(lengths.length * T);
  lengths.forEach((len, b) => mask.fill(1, b * T, b * T + len));
  return mask;
}

describe('erf and exact GELU', () => {
  it('erf and erfc match tabulated values to double precision', () => {
    const table: [number, number][] = [
      [erf(0.01), 0.011283415555849618],
      [erf(0.5), 0.5204998778130465],
      [erf(1), 0.8427007929497149],
      [erf(2), 0.9953222650189527],
      [erf(-1), -0.8427007929497149],
      [erfc(5), 1.5374597944280349e-12],
      [erfc(10), 2.088487583762545e-45],
    ];
    for (const [actual, expected] of table)
      expect(Math.abs(actual - expected)).toBeLessThanOrEqual(4e-16 * Math.abs(expected) + 1e-300);
  });

  it('erf is continuous where the series hands over to the continued fraction', () => {
    expect(Math.abs(erfc(3 - 1e-12) - erfc(3 + 1e-12))).toBeLessThan(1e-15);
  });

  it('GELU is x * Phi(x): gelu(1), tiny tails, and its derivative matches finite differences', () => {
    expect(gelu(1)).toBeCloseTo(0.8413447460685429, 15);
    expect(gelu(-10)).toBeLessThan(0);
    expect(Math.abs(gelu(-10) / -7.6198530241605e-23 - 1)).toBeLessThan(1e-9);
    for (const x of [-4.1, -0.7, 0, 0.3, 2.9]) {
      const fd = (gelu(x + 1e-6) - gelu(x - 1e-6)) / 2e-6;
      expect(geluDerivative(x)).toBeCloseTo(fd, 8);
    }
  });

  it.each([1, 7, 33])('gelu backward on %i values', (n) => {
    checkGradients({
      inputs: { x: random.uniforms(n, -4, 4) },
      forward: ({ x }) => {
        const out = new Float64Array(n);
        geluForward(out, x);
        return out;
      },
      backward: ({ x }, dout) => {
        const dx = new Float64Array(n);
        geluBackward(dx, dout, x);
        return { x: dx };
      },
      wrt: ['x'],
    });
  });

  it('GeGLU gates gelu(first half) by the second half', () => {
    const inp = Float64Array.from([0.5, -1, 2, 3]); // N = 1, I = 2: input = [0.5, -1], gate = [2, 3]
    const out = new Float64Array(2);
    gegluForward(out, inp, 1, 2);
    expectClose('geglu', out, [gelu(0.5) * 2, gelu(-1) * 3], { rtol: 1e-15, atol: 0 });
  });

  it.each([
    [1, 1],
    [7, 5],
  ])('GeGLU backward, N = %i, I = %i', (N, I) => {
    checkGradients({
      inputs: { x: random.uniforms(N * 2 * I, -3, 3) },
      forward: ({ x }) => {
        const out = new Float64Array(N * I);
        gegluForward(out, x, N, I);
        return out;
      },
      backward: ({ x }, dout) => {
        const dx = new Float64Array(x.length);
        gegluBackward(dx, dout, x, N, I);
        return { x: dx };
      },
      wrt: ['x'],
    });
  });
});

describe.each([
  { N: 1, C: 1, OC: 1, bias: true },
  { N: 7, C: 5, OC: 3, bias: true },
  { N: 14, C: 9, OC: 11, bias: false },
])('linear N=$N C=$C OC=$OC bias=$bias', ({ N, C, OC, bias }) => {
  it('backward matches finite differences for input, weight and bias', () => {
    const inputs: Record<string, Float64Array> = { x: random.normals(N * C), w: random.normals(OC * C) };
    if (bias) inputs.b = random.normals(OC);
    checkGradients({
      inputs,
      forward: (i) => {
        const out = new Float64Array(N * OC);
        linearForward(out, i.x, i.w, i.b ?? null, N, C, OC);
        return out;
      },
      backward: (i, dout) => {
        const g = { x: new Float64Array(N * C), w: new Float64Array(OC * C), b: new Float64Array(OC) };
        linearBackward(g.x, g.w, bias ? g.b : null, dout, i.x, i.w, N, C, OC);
        return bias ? g : { x: g.x, w: g.w };
      },
      wrt: bias ? ['x', 'w', 'b'] : ['x', 'w'],
    });
  });
});

describe.each([
  { N: 1, C: 3, bias: true, eps: 1e-12 },
  { N: 7, C: 5, bias: false, eps: 1e-5 },
  { N: 14, C: 16, bias: true, eps: 1e-5 },
])('LayerNorm N=$N C=$C bias=$bias', ({ N, C, bias, eps }) => {
  it('normalises each row and its backward matches finite differences', () => {
    const inputs: Record<string, Float64Array> = { x: random.normals(N * C, 2), w: random.uniforms(C, 0.5, 1.5) };
    if (bias) inputs.b = random.normals(C);
    const forward = (i: Record<string, Float64Array>) => {
      const out = new Float64Array(N * C);
      layerNormForward(out, new Float64Array(N), new Float64Array(N), i.x, i.w, i.b ?? null, N, C, eps);
      return out;
    };
    const ones = { ...inputs, w: new Float64Array(C).fill(1), b: new Float64Array(C) };
    const unit = forward(ones);
    const rowMean = unit.slice(0, C).reduce((a, v) => a + v, 0) / C;
    expect(Math.abs(rowMean)).toBeLessThan(1e-12);
    checkGradients({
      inputs,
      forward,
      backward: (i, dout) => {
        const mean = new Float64Array(N);
        const rstd = new Float64Array(N);
        layerNormForward(new Float64Array(N * C), mean, rstd, i.x, i.w, i.b ?? null, N, C, eps);
        const g = { x: new Float64Array(N * C), w: new Float64Array(C), b: new Float64Array(C) };
        layerNormBackward(g.x, g.w, bias ? g.b : null, dout, i.x, i.w, mean, rstd, N, C);
        return bias ? g : { x: g.x, w: g.w };
      },
      wrt: bias ? ['x', 'w', 'b'] : ['x', 'w'],
    });
  });
});

describe('embedding lookup', () => {
  it('scatter-adds repeated ids and skips the padding index, like nn.Embedding(padding_idx)', () => {
    const d = 3;
    const table = random.normals(5 * d);
    const ids = Int32Array.from([4, 2, 4, 0, 2, 4, 1]);
    const out = new Float64Array(ids.length * d);
    embeddingForward(out, ids, table, ids.length, d, false);
    expectClose('row of id 4', out.slice(0, d), table.slice(4 * d, 5 * d), { rtol: 0, atol: 0 });
    const dout = random.normals(ids.length * d);
    const dtable = new Float64Array(table.length);
    embeddingBackward(dtable, dout, ids, ids.length, d, 0);
    const expected4 = [0, 1, 2].map((c) => dout[0 * d + c] + dout[2 * d + c] + dout[5 * d + c]);
    expectClose('d row 4', dtable.slice(4 * d, 5 * d), expected4, { rtol: 1e-15, atol: 0 });
    expectClose('d padding row', dtable.slice(0, d), [0, 0, 0], { rtol: 0, atol: 0 });
    expectClose('d unused row 3', dtable.slice(3 * d, 4 * d), [0, 0, 0], { rtol: 0, atol: 0 });
  });

  it('rejects ids outside the table', () => {
    expect(() => embeddingForward(new Float64Array(2), Int32Array.from([2]), new Float64Array(4), 1, 2, false)).toThrow(
      /outside the table/,
    );
  });
});

const attentionCases = [
  { name: 'T=1', B: 1, T: 1, NH: 1, hd: 2, lengths: [1], halfWindow: null },
  { name: 'T=7 padded, odd head size', B: 2, T: 7, NH: 3, hd: 3, lengths: [7, 4], halfWindow: null },
  { name: 'T=7 sliding window 2', B: 2, T: 7, NH: 2, hd: 4, lengths: [7, 5], halfWindow: 2 },
];

describe.each(attentionCases)('attention $name', ({ B, T, NH, hd, lengths, halfWindow }) => {
  const d = NH * hd;
  const shape = { B, T, NH, hd };
  const masking = { mask: paddedMask(T, lengths), halfWindow };
  const run = (qkv: Float64Array) => {
    const out = new Float64Array(B * T * d);
    const probs = new Float64Array(B * NH * T * T);
    attentionForward(out, probs, qkv, shape, masking);
    return { out, probs };
  };

  it('gives zero probability to padded and out-of-window keys and rows that sum to 1', () => {
    const { probs } = run(random.normals(B * T * 3 * d));
    for (let b = 0; b < B; b++)
      for (let h = 0; h < NH; h++)
        for (let i = 0; i < T; i++) {
          let sum = 0;
          for (let j = 0; j < T; j++) {
            const p = probs[((b * NH + h) * T + i) * T + j];
            const visible = j < lengths[b] && (halfWindow === null || Math.abs(i - j) <= halfWindow);
            if (!visible) expect(p).toBe(0);
            sum += p;
          }
          const anyVisible = [...Array(T).keys()].some(
            (j) => j < lengths[b] && (halfWindow === null || Math.abs(i - j) <= halfWindow),
          );
          expect(sum).toBeCloseTo(anyVisible ? 1 : 0, 12);
        }
  });

  it('backward matches finite differences for q, k and v', () => {
    checkGradients({
      inputs: { qkv: random.normals(B * T * 3 * d) },
      forward: ({ qkv }) => run(qkv).out,
      backward: ({ qkv }, dout) => {
        const dqkv = new Float64Array(qkv.length);
        attentionBackward(dqkv, dout, run(qkv).probs, qkv, shape);
        return { qkv: dqkv };
      },
      wrt: ['qkv'],
      samples: 48,
    });
  });
});

describe('rotary embeddings (rotate_half convention)', () => {
  const B = 1;
  const T = 7;
  const NH = 2;
  const hd = 4;
  const d = NH * hd;
  const table = ropeTable(T, hd, 10000);
  const rotate = (qkv: Float64Array) => {
    const out = new Float64Array(qkv.length);
    ropeForward(out, qkv, table, B, T, NH);
    return out;
  };

  it('rotates pairs (j, j + hd/2) by position * theta^(-2j/hd) and leaves v alone', () => {
    const qkv = random.normals(B * T * 3 * d);
    const out = rotate(qkv);
    const t = 3;
    const base = t * 3 * d + d + 1 * hd; // k of head 1 at position 3
    for (let j = 0; j < hd / 2; j++) {
      const angle = t * Math.pow(10000, (-2 * j) / hd);
      const x1 = qkv[base + j];
      const x2 = qkv[base + hd / 2 + j];
      expect(out[base + j]).toBeCloseTo(x1 * Math.cos(angle) - x2 * Math.sin(angle), 14);
      expect(out[base + hd / 2 + j]).toBeCloseTo(x2 * Math.cos(angle) + x1 * Math.sin(angle), 14);
    }
    expectClose('v unchanged', out.slice(2 * d, 3 * d), qkv.slice(2 * d, 3 * d), { rtol: 0, atol: 0 });
  });

  it('makes q.k depend only on the distance between positions', () => {
    const q = random.normals(hd);
    const k = random.normals(hd);
    const place = (qt: number, kt: number) => {
      const qkv = new Float64Array(T * 3 * d);
      qkv.set(q, qt * 3 * d);
      qkv.set(k, kt * 3 * d + d);
      const out = rotate(qkv);
      let s = 0;
      for (let c = 0; c < hd; c++) s += out[qt * 3 * d + c] * out[kt * 3 * d + d + c];
      return s;
    };
    expect(place(1, 4)).toBeCloseTo(place(3, 6), 12);
    expect(Math.abs(place(1, 4) - place(1, 5))).toBeGreaterThan(1e-6);
  });

  it('backward is the transposed rotation (finite differences)', () => {
    checkGradients({
      inputs: { qkv: random.normals(B * T * 3 * d) },
      forward: ({ qkv }) => rotate(qkv),
      backward: (_, dout) => {
        const dqkv = new Float64Array(dout.length);
        ropeBackward(dqkv, dout, table, B, T, NH);
        return { qkv: dqkv };
      },
      wrt: ['qkv'],
    });
  });
});

describe('SPLADE max pooling', () => {
  const B = 2;
  const T = 3;
  const V = 4;
  const mask = paddedMask(T, [3, 2]);
  // b = 1, t = 2 is padding and holds the largest logit of column 0: it must be ignored.
  const logits = Float64Array.from([
    ...[0.5, -1, 0.2, -0.3],
    ...[1.5, -2, 0.1, -0.1],
    ...[0.7, -0.5, 3, -0.2],
    ...[-0.4, 2, -1, -0.6],
    ...[0.9, 1, -0.2, -0.5],
    ...[9, 9, 9, -0.1],
  ]);

  it('takes the max of log1p(relu) over real tokens and records the argmax', () => {
    const pool = spladePoolForward(logits, mask, B, T, V);
    expectClose('pooled', pool.pooled, [Math.log1p(1.5), 0, Math.log1p(3), 0, Math.log1p(0.9), Math.log1p(2), 0, 0], {
      rtol: 1e-15,
      atol: 0,
    });
    expect([...pool.argmax]).toEqual([1, -1, 2, -1, 1, 0, -1, -1]);
  });

  it('backward matches finite differences away from ties and zeros', () => {
    checkGradients({
      inputs: { logits: Float64Array.from(logits) },
      forward: ({ logits: l }) => spladePoolForward(l, mask, B, T, V).pooled,
      backward: ({ logits: l }, dout) => {
        const dl = new Float64Array(l.length);
        spladePoolBackward(dl, dout, l, spladePoolForward(l, mask, B, T, V), B, T, V);
        return { logits: dl };
      },
      wrt: ['logits'],
    });
  });
});

// Central finite differences against a reference backward: for loss = <forward(x), dout>, d loss / d x_i.
import { expect } from 'vitest';
import { Random } from '../../src/util/random.ts';

export interface GradCheck<I extends Record<string, Float64Array>> {
  inputs: I;
  /** The op's output(s), concatenated into one array. */
  forward: (inputs: I) => Float64Array;
  /** Gradients of <forward(inputs), dout> for the inputs named in `wrt`. */
  backward: (inputs: I, dout: Float64Array) => Partial<Record<keyof I, Float64Array>>;
  wrt: (keyof I)[];
  /** Entries checked per input (a seeded sample when the input is larger). */
  samples?: number;
  eps?: number;
  rtol?: number;
  atol?: number;
  seed?: number;
}

export function checkGradients<I extends Record<string, Float64Array>>(check: GradCheck<I>): void {
  const { inputs, forward, backward, wrt, samples = 24, eps = 1e-6, rtol = 1e-5, atol = 1e-7, seed = 7 } = check;
  const random = new Random(seed);
  const out = forward(inputs);
  const dout = random.normals(out.length);
  const loss = (x: I) => dot(forward(x), dout);
  const grads = backward(inputs, dout);
  for (const name of wrt) {
    const x = inputs[name];
    const g = grads[name];
    expect(g, `gradient of ${String(name)}`).toBeDefined();
    expect(g!.length, `gradient of ${String(name)}: length`).toBe(x.length);
    const indices = x.length <= samples ? [...x.keys()] : Array.from({ length: samples }, () => random.int(x.length));
    for (const i of indices) {
      const numeric = centralDifference(x, i, () => loss(inputs), eps);
      const analytic = g![i];
      const ok = Math.abs(numeric - analytic) <= atol + rtol * Math.max(Math.abs(numeric), Math.abs(analytic));
      if (!ok) expect.fail(`d/d${String(name)}[${i}]: analytic ${analytic}, finite difference ${numeric}`);
    }
  }
}

/** (loss at x_i + eps - loss at x_i - eps) / 2 eps, x_i put back after. */
export function centralDifference(x: Float64Array, i: number, loss: () => number, eps: number): number {
  const saved = x[i];
  x[i] = saved + eps;
  const plus = loss();
  x[i] = saved - eps;
  const minus = loss();
  x[i] = saved;
  return (plus - minus) / (2 * eps);
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

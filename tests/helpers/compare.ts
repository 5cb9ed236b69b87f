// Element-wise closeness with the worst offender named: |a - e| <= atol + rtol * |e|.
import { expect } from 'vitest';

export interface Tolerance {
  rtol: number;
  atol: number;
}

export function expectClose(label: string, actual: ArrayLike<number>, expected: ArrayLike<number>, tol: Tolerance): void {
  expect(actual.length, `${label}: length`).toBe(expected.length);
  let worst = -1;
  let worstExcess = 0;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const e = expected[i];
    const excess = Math.abs(a - e) - (tol.atol + tol.rtol * Math.abs(e));
    if (!(excess <= 0) && (worst < 0 || !(excess <= worstExcess))) {
      worst = i;
      worstExcess = excess;
    }
  }
  if (worst >= 0) {
    expect.fail(
      `${label}: element ${worst} is ${actual[worst]}, expected ${expected[worst]} ` +
        `(rtol ${tol.rtol}, atol ${tol.atol})`,
    );
  }
}

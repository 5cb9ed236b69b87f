// Element-wise closeness without a test framework (runs in Node and in a browser worker): the worst offender, named.

export interface Tolerance {
  rtol: number;
  atol: number;
  /**
   * How the two bounds combine: 'sum' (default, numpy's allclose) |a - e| <= atol + rtol·|e|; 'max' |a - e| <=
   * max(atol, rtol·|e|), for a bound written as "rtol relative to max(1, |e|)" (atol = rtol).
   */
  combine?: 'sum' | 'max';
}

/** Exact equality of every value (integers, or floats that must agree bit for bit up to -0 = 0). */
export const EXACT: Tolerance = { rtol: 0, atol: 0 };

/** The allowed |actual - expected| at one element. */
export function bound(expected: number, tol: Tolerance): number {
  const relative = tol.rtol * Math.abs(expected);
  return tol.combine === 'max' ? Math.max(tol.atol, relative) : tol.atol + relative;
}

/**
 * null when every element is within tolerance (NaN never is, unless expected is NaN too), else a message naming the
 * worst element: `label: element i is a, expected e (rtol, atol); n of N elements outside`.
 */
export function closeFailure(
  label: string,
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  tol: Tolerance,
): string | null {
  if (actual.length !== expected.length) return `${label}: ${actual.length} elements, expected ${expected.length}`;
  let worst = -1;
  let worstExcess = 0;
  let outside = 0;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const e = expected[i];
    if (Number.isNaN(e) && Number.isNaN(a)) continue;
    if (a === e) continue; // equal infinities too
    const excess = Math.abs(a - e) - bound(e, tol);
    if (excess <= 0) continue;
    outside++;
    if (worst < 0 || !(excess <= worstExcess)) {
      worst = i;
      worstExcess = excess;
    }
  }
  if (worst < 0) return null;
  const how = tol.combine === 'max' ? 'max of ' : '';
  return (
    `${label}: element ${worst} is ${actual[worst]}, expected ${expected[worst]} ` +
    `(${how}rtol ${tol.rtol}, atol ${tol.atol}); ${outside} of ${expected.length} elements outside`
  );
}

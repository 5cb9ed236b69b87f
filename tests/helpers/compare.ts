// vitest's side of allclose.ts: element-wise closeness with the worst offender named, |a - e| <= atol + rtol * |e|.
import { expect } from 'vitest';
import { closeFailure, type Tolerance } from './allclose.ts';

export type { Tolerance } from './allclose.ts';

export function expectClose(label: string, actual: ArrayLike<number>, expected: ArrayLike<number>, tol: Tolerance): void {
  const failure = closeFailure(label, actual, expected, tol);
  if (failure) expect.fail(failure);
}

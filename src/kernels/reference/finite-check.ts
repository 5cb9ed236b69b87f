// Float64 reference of the finite_check family (src/kernels/finite-check.ts): the flag words a set of checks leaves.
import { NO_STEP } from '../finite-check.ts';

/** One check: a whole tensor (one flag) or, with `perElement`, each of its first `values.length` elements (a flag each). */
export interface FiniteCheckInput {
  values: ArrayLike<number>;
  perElement?: boolean;
}

/** Flags after checking `checks` (bits assigned in order) at `step`, starting from `previous` (sticky) or clear. */
export function finiteCheckForward(checks: readonly FiniteCheckInput[], step: number, previous?: ArrayLike<number>): Uint32Array {
  const bits = checks.reduce((n, c) => n + (c.perElement ? c.values.length : 1), 0);
  const flags = new Uint32Array(1 + Math.ceil(bits / 32));
  if (previous) flags.set(previous);
  else flags[0] = NO_STEP;
  let bit = 0;
  const raise = (b: number) => {
    flags[1 + (b >> 5)] |= 1 << (b & 31);
    flags[0] = Math.min(flags[0], step);
  };
  for (const check of checks) {
    if (check.perElement) {
      for (let i = 0; i < check.values.length; i++) if (!Number.isFinite(check.values[i])) raise(bit + i);
      bit += check.values.length;
    } else {
      for (let i = 0; i < check.values.length; i++) {
        if (!Number.isFinite(check.values[i])) {
          raise(bit);
          break;
        }
      }
      bit += 1;
    }
  }
  return flags;
}

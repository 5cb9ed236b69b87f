// A kernel family's case table: plain data and builders, no test framework, so that the Node suites (default device
// and portable limits, tests/helpers/expect-kernel.ts) and Chromium (tests/browser/kernel-cases.test.ts) run the same
// cases through checkKernel.
import type { GpuContext } from '../../../../src/gpu/context.ts';
import type { KernelReport, KernelTest } from '../../../helpers/check-kernel.ts';

/** The part of Vitest's `expect` a case's further checks use; the Node and browser suites pass their own. */
export type CaseExpect = (value: unknown, message?: string) => CaseMatchers;

export interface CaseMatchers {
  toBe: (expected: unknown) => void;
  toEqual: (expected: unknown) => void;
  toBeLessThan: (expected: number) => void;
  toBeLessThanOrEqual: (expected: number) => void;
  toBeGreaterThan: (expected: number) => void;
  toBeGreaterThanOrEqual: (expected: number) => void;
  toBeNaN: () => void;
}

export interface KernelCase {
  /** The test's name (the `it` in Node). */
  name: string;
  /** The kernel test, built for the device it runs on. */
  make: (ctx: GpuContext) => KernelTest;
  /** The device the kernel runs on, from the suite's (a view with lowered limits). Default: the suite's. */
  context?: (ctx: GpuContext) => GpuContext;
  /** Checks of the report beyond the reference's (what the results decode to), with the suite's `expect`. */
  then?: (report: KernelReport, expect: CaseExpect) => void;
}

/** One `describe` of a family's cases (nested `describe`s: their names, outermost first). */
export interface KernelCaseGroup {
  describe: string | string[];
  cases: KernelCase[];
}

/** Every case of one kernel family (`shaders/<family>.wgsl`), in the groups its Node test file shows. */
export interface KernelFamily {
  family: string;
  groups: KernelCaseGroup[];
}

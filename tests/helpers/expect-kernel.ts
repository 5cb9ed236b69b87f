// vitest's thin wrapper of check-kernel.ts: a kernel test fails with every failure the helper found; a family's case
// table (tests/node/kernels/cases/) becomes its tests.
import { describe, expect, it } from 'vitest';
import type { GpuContext } from '../../src/gpu/context.ts';
import type { KernelCase, KernelFamily } from '../node/kernels/cases/kernel-case.ts';
import { checkKernel, type KernelReport, type KernelTest } from './check-kernel.ts';
import { gpuContext } from './gpu.ts';

export type { KernelTest } from './check-kernel.ts';

/** Runs checkKernel and fails the test with all of its failures; returns the report for further assertions. */
export async function expectKernel(ctx: GpuContext, test: KernelTest): Promise<KernelReport> {
  const report = await checkKernel(ctx, test);
  if (report.failures.length) expect.fail(report.failures.join('\n'));
  return report;
}

/** A family's case table as Vitest tests: a `describe` per group, an `it` per case (tests/node/kernels/cases/). */
export function describeKernelFamily(family: KernelFamily): void {
  for (const group of family.groups) {
    const [outer, ...inner] = [group.describe].flat();
    const nest = (names: string[]): void => {
      if (names.length) describe(names[0], () => nest(names.slice(1)));
      else itEachKernelCase(group.cases);
    };
    describe(outer, () => nest(inner));
  }
}

/** An `it` per case, in the enclosing `describe`: the kernel against its reference on this file's device. */
export function itEachKernelCase(cases: KernelCase[]): void {
  for (const kernelCase of cases) {
    it(kernelCase.name, async () => {
      const suite = await gpuContext();
      const ctx = kernelCase.context?.(suite) ?? suite;
      const report = await expectKernel(ctx, kernelCase.make(ctx));
      kernelCase.then?.(report, expect);
    });
  }
}

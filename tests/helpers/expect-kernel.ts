// vitest's thin wrapper of check-kernel.ts: a kernel test fails with every failure the helper found.
import { expect } from 'vitest';
import type { GpuContext } from '../../src/gpu/context.ts';
import { checkKernel, type KernelReport, type KernelTest } from './check-kernel.ts';

export type { KernelTest } from './check-kernel.ts';

/** Runs checkKernel and fails the test with all of its failures; returns the report for further assertions. */
export async function expectKernel(ctx: GpuContext, test: KernelTest): Promise<KernelReport> {
  const report = await checkKernel(ctx, test);
  if (report.failures.length) expect.fail(report.failures.join('\n'));
  return report;
}

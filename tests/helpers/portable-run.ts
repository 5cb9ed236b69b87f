// The portable run (`npm run test:portable`, SPLADE_LAB_PORTABLE=1) repeats the GPU-facing Node files under WebGPU's
// default limits; a check in those files that never touches the GPU (a float64 reference against finite differences)
// computes the same bits there as in `npm run test:node`, so it runs in that tier only.
import { describe, it } from 'vitest';

/** Whether this process is the portable run. */
export const PORTABLE_RUN = process.env.SPLADE_LAB_PORTABLE === '1';

/** A describe block of CPU-only checks: run by test:node, skipped by the portable run (it would repeat them bit for bit). */
export const describeOnCpu = describe.skipIf(PORTABLE_RUN);

/** One CPU-only check among GPU ones: run by test:node, skipped by the portable run. */
export const itOnCpu = it.skipIf(PORTABLE_RUN);

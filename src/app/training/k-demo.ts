// The teaching demo, once for the page and the CLI: head-only training of a synthetic large-norm head for each k in
// turn (the same seeded head and batch), with the growing loss line of the k in training after every read-back.
import type { GpuContext } from '../../gpu/context.ts';
import type { StepLosses } from '../../contract/training/training-report.ts';
import { runSyntheticKDemo } from '../../train/splade/synthetic-k-demo.ts';
import { K_DEMO_SHAPE, KDemoResult, KDemoSeries } from '../../contract/training/k-demo-results.ts';
import { checkKDemoRequest, type KDemoRequest } from '../../contract/model/model-requests.ts';
const K_DEMO_PROVENANCE =
  `synthetic data: seeded random hidden states (${K_DEMO_SHAPE.B} queries of ${K_DEMO_SHAPE.Tq} tokens, ` +
  `${2 * K_DEMO_SHAPE.B} documents of ${K_DEMO_SHAPE.Td}, d = ${K_DEMO_SHAPE.d}) and a random head of ${K_DEMO_SHAPE.V} rows ` +
  `with mean row norm 2.5, divided by k; only the head is trained (no model, no real text)`;

export interface KDemoOptions {
  signal?: AbortSignal;
  /** The line of ks[index] so far, after every read-back, and once more when that k is finished. */
  onRun?: (run: KDemoSeries, index: number, total: number, finished: boolean) => void;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('Cancelled by the user', 'AbortError');
}

export async function runKDemo(ctx: GpuContext, request: KDemoRequest, options: KDemoOptions = {}): Promise<KDemoResult> {
  const { ks, steps, seed, every } = checkKDemoRequest(request);
  const { signal, onRun } = options;
  const runs: KDemoSeries[] = [];
  for (const k of ks) {
    if (signal?.aborted) throw abortError(signal);
    const index = runs.length;
    const onLosses = (_: number, losses: readonly StepLosses[]) => onRun?.({ k, losses: [...losses] }, index, ks.length, false);
    const [run] = await runSyntheticKDemo(ctx, { ks: [k], steps, seed, every, onLosses, signal }).catch((error: unknown) => {
      throw signal?.aborted ? abortError(signal) : error;
    });
    runs.push(run);
    onRun?.(run, index, ks.length, true);
  }
  return { runs, shape: K_DEMO_SHAPE, provenance: K_DEMO_PROVENANCE };
}

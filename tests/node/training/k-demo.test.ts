// The synthetic k demo shows the paper's first finding: the large-norm head (k = 1) starts from a far larger loss
// and denser vectors than the same head divided by 16, and training lowers the ranking loss for both.
import { describe, expect, it } from 'vitest';
import { runSyntheticKDemo } from '../../../src/train/splade/synthetic-k-demo.ts';
import { runCli } from '../../helpers/cli.ts';
import { gpuContext } from '../../helpers/gpu.ts';

describe('synthetic k demo', () => {
  it('k = 1 starts more than 10x above k = 16 (ranking loss and FLOPS), and both runs learn', async () => {
    const ctx = await gpuContext();
    const [k1, k16] = await runSyntheticKDemo(ctx, { ks: [1, 16], steps: 16, every: 15 });
    const first = (r: typeof k1) => r.losses[0];
    const last = (r: typeof k1) => r.losses[r.losses.length - 1];
    expect(first(k1).rank).toBeGreaterThan(10 * first(k16).rank);
    expect(first(k1).flopsQueries).toBeGreaterThan(10 * first(k16).flopsQueries);
    expect(last(k1).rank).toBeLessThan(first(k1).rank);
    expect(last(k16).rank).toBeLessThan(first(k16).rank);
  });

  it('reports each read-back as it happens and stops between steps when aborted', async () => {
    const ctx = await gpuContext();
    const seen: number[] = [];
    const controller = new AbortController();
    const run = runSyntheticKDemo(ctx, {
      ks: [4],
      steps: 10,
      every: 2,
      signal: controller.signal,
      onLosses: (k, losses) => {
        expect(k).toBe(4);
        seen.push(losses.length);
        if (losses.length === 2) controller.abort(new Error('stop here'));
      },
    });
    await expect(run).rejects.toThrow('stop here');
    expect(seen).toEqual([1, 2]); // steps 0 and 2 were read back; step 3 never ran
  });

  it('the CLI prints one block per k and refuses a bad k', async () => {
    const { code, stdout } = await runCli('k-demo', '--k', '2,8', '--steps', '3');
    expect(code).toBe(0);
    expect(stdout).toMatch(/k = 2\n[\s\S]*k = 8\n/);
    const bad = await runCli('k-demo', '--k', '0');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/k must be a number from 0.25 to 64, got 0/);
  });
});

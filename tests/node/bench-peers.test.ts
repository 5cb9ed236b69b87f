// The peers bench end to end at its small size, in Node and in headless Chromium: every system runs the same step (its
// step-1 loss equals splade-lab's in the same place, and splade-lab's equals the float64 reference objective), the
// inference rows agree with onnxruntime-web (wasm in Node, WebGPU in Chromium) where PyTorch can export the model,
// and the JSON has the fields.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePeerProblem } from '../../scripts/peers/problem.ts';
import { spladeObjectiveReference } from '../../src/train/splade-objective-reference.ts';

interface Report {
  adapter: string;
  inference: { rows: { system: string; environment: string; length: number; documentsPerSecond: number; maxAbsDiffVsSpladeLab: number | null }[]; skipped: { system: string; why: string }[] };
  rows: { system: string; setting: string; environment: string; medianMs: number; gpuBytes: number | null; step1Loss: number; sameStep1Loss?: boolean; comparison?: string }[];
  skipped: { system: string; setting: string; why: string }[];
}

// The harness, not a kernel: the portability run (npm run test:portable) leaves it to the default run.
describe.skipIf(process.env.SPLADE_LAB_PORTABLE === '1')('npm run bench:peers --size small', () => {
  it('runs splade-lab, TensorFlow.js-WebGPU and jax-js in Node and in Chromium (and PyTorch where installed) on the same step', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'peers-test-')), 'peers.json');
    const run = spawnSync(process.execPath, ['--import', './bin/register-hooks.mjs', 'scripts/bench-peers.ts', '--size', 'small', '--reps', '1', '--where', 'node,chromium', '--out', out], {
      encoding: 'utf8',
      timeout: 420_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8')) as Report;
    expect(report.adapter).toMatch(/splade-lab on /);
    const torch = () => report.rows.some((r) => r.system === 'pytorch-cpu');
    for (const setting of ['head-only', 'tiny-encoder']) {
      for (const environment of ['node', 'chromium']) {
        const systems = report.rows.filter((r) => r.setting === setting && r.environment === environment).map((r) => r.system);
        expect(systems, `${setting} in ${environment}`).toEqual(expect.arrayContaining(['splade-lab', 'tfjs-webgpu', 'jax-js']));
      }
      const ran = report.rows.some((r) => r.setting === setting && r.system === 'pytorch-cpu');
      expect(ran || report.skipped.some((s) => s.setting === setting && s.system === 'pytorch-cpu' && s.why.includes('torch'))).toBe(true);
    }
    for (const row of report.rows) {
      expect(row.medianMs).toBeGreaterThan(0);
      if (row.system === 'splade-lab') continue;
      expect(row.sameStep1Loss, `${row.system} ${row.setting}`).toBe(true);
      // everything here runs on the CPU (SwiftShader, or PyTorch's CPU path), and the row says so
      expect(row.comparison).toBe('CPU vs CPU');
    }
    // inference: splade-lab at both lengths in both places; onnxruntime-web (WebAssembly in Node, WebGPU in Chromium)
    // on the exported model gives the same vectors
    const inference = report.inference.rows;
    const lengths = (system: string, environment: string) => inference.filter((r) => r.system === system && r.environment === environment).map((r) => r.length);
    expect(lengths('splade-lab', 'node')).toEqual([16, 24]);
    if (torch()) {
      expect(lengths('splade-lab', 'chromium')).toEqual([16, 24]);
      expect(lengths('onnxruntime-web-wasm', 'node')).toEqual([16, 24]);
      expect(lengths('onnxruntime-web-webgpu', 'chromium')).toEqual([16, 24]);
    } else {
      expect(report.inference.skipped.map((s) => s.why).join(' ')).toContain('torch');
    }
    for (const row of inference) {
      expect(row.documentsPerSecond).toBeGreaterThan(0);
      if (row.system !== 'splade-lab') expect(row.maxAbsDiffVsSpladeLab).toBeLessThan(1e-4);
    }

    const tfjs = report.rows.find((r) => r.system === 'tfjs-webgpu')!;
    expect(tfjs.gpuBytes).toBeGreaterThan(0);

    // splade-lab's head-only step-1 loss is the float64 objective of the same problem
    const problem = makePeerProblem('head-only', 'small');
    const { B, Tq, Td, d, V } = problem.dims;
    const { hyper, fixed, trainable } = problem;
    const reference = spladeObjectiveReference(
      {
        hiddenQueries: fixed.hiddenQueries.data,
        maskQueries: fixed.maskQueries.data,
        hiddenDocuments: fixed.hiddenDocuments.data,
        maskDocuments: fixed.maskDocuments.data,
        weight: trainable.weight.data,
        bias: trainable.bias.data,
      },
      { B, Tq, Td, d, V },
      hyper.tau,
      hyper.lambdaQueries,
      hyper.lambdaDocuments,
    );
    const ours = report.rows.find((r) => r.system === 'splade-lab' && r.setting === 'head-only')!;
    expect(Math.abs(ours.step1Loss - reference.total) / reference.total).toBeLessThan(1e-5);
  }, 480_000);
});

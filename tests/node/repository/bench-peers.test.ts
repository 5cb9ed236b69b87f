// The peers bench's smoke test at its smallest size: the head-only step in Node, where every peer that runs here
// (TensorFlow.js-WebGPU, jax-js, PyTorch where installed) reaches splade-lab's step-1 loss and splade-lab's equals the
// float64 reference objective, and the JSON has the fields. The whole bench (the tiny encoder, Chromium,
// onnxruntime-web's inference rows) is `npm run bench:peers`, which fails on any step-1 mismatch itself.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePeerProblem } from '../../../scripts/peers/problem.ts';
import { spladeObjectiveReference } from '../../../src/train/splade/splade-objective-reference.ts';

interface Report {
  adapter: string;
  inference?: {
    rows: {
      system: string;
      environment: string;
      length: number;
      documentsPerSecond: number;
      maxAbsDiffVsSpladeLab: number | null;
    }[];
    skipped: { system: string; why: string }[];
  };
  rows: {
    system: string;
    setting: string;
    environment: string;
    medianMs: number;
    gpuBytes: number | null;
    step1Loss: number;
    sameStep1Loss?: boolean;
    comparison?: string;
  }[];
  skipped: { system: string; setting: string; why: string }[];
}

describe('npm run bench:peers, smallest size, head-only, in Node', () => {
  it('runs splade-lab, TensorFlow.js-WebGPU and jax-js (and PyTorch where installed) on the same step with the same step-1 loss', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'peers-test-')), 'peers.json');
    const args = [
      '--size',
      'small',
      '--reps',
      '1',
      '--where',
      'node',
      '--settings',
      'head-only',
      '--skip-inference',
      '--out',
      out,
    ];
    const run = spawnSync(process.execPath, ['--import', './bin/register-hooks.mjs', 'scripts/bench-peers.ts', ...args], {
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8')) as Report;
    expect(report.adapter).toMatch(/splade-lab on /);
    const systems = report.rows.map((r) => r.system);
    expect(systems).toEqual(expect.arrayContaining(['splade-lab', 'tfjs-webgpu', 'jax-js']));
    const torchRan = systems.includes('pytorch-cpu');
    expect(torchRan || report.skipped.some((s) => s.system === 'pytorch-cpu' && s.why.includes('torch'))).toBe(true);
    for (const row of report.rows) {
      expect([row.setting, row.environment]).toEqual(['head-only', 'node']);
      expect(row.medianMs).toBeGreaterThan(0);
      if (row.system === 'splade-lab') continue;
      expect(row.sameStep1Loss, row.system).toBe(true);
      // everything here runs on the CPU (SwiftShader, or PyTorch's CPU path), and the row says so
      expect(row.comparison).toBe('CPU vs CPU');
    }
    expect(report.inference?.rows ?? [], '--skip-inference leaves the inference rows out').toEqual([]);

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
  }, 300_000);
});

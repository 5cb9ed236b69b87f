// `npm run bench:peers -- [--out peers.json] [--systems ...] [--settings ...] [--reps 3] [--size bench|small]
// [--where node,chromium] [--gpu [--peak-tflops n]] [--skip-inference]`: one SPLADE training step in splade-lab and in
// each peer (TensorFlow.js-WebGPU, jax-js, PyTorch on the CPU), each in its own Node process (and, with chromium in
// --where, each in its own page of headless Chromium), on the same adapter and from the same weights and batch; a
// table and JSON. --gpu first measures splade-lab's kernels and a BERT-base step on a real GPU (peers/gpu-mode.ts);
// then encoding throughput against onnxruntime-web (peers/inference.ts) unless --skip-inference.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RESULT_PREFIX, type PeerSystemName } from './peers/peer-system.ts';
import { makePeerProblem, PEER_SETTINGS, PEER_SIZES, type PeerSetting, type PeerSize } from './peers/problem.ts';
import { writeProblemFolder } from './peers/pytorch-problem.ts';
import { runGpuMode } from './peers/gpu-mode.ts';
import type { PeerResult } from './peers/measure-peer.ts';
import type { InferenceReport } from './peers/encode-systems.ts';
import { runInferencePeers } from './peers/inference.ts';
import { printTable } from './bench/print-table.ts';

const SYSTEMS: readonly PeerSystemName[] = ['splade-lab', 'tfjs-webgpu', 'jax-js', 'pytorch-cpu'];
/** Largest relative difference of a peer's step-1 loss from splade-lab's that still counts as the same work (fp32). */
const LOSS_TOLERANCE = 1e-4;

const ENVIRONMENTS = ['node', 'chromium'] as const;

interface PeerRow extends PeerResult {
  /** Where it ran: Node on Dawn, or a page in headless Chromium. */
  environment: (typeof ENVIRONMENTS)[number];
  /** medianMs / splade-lab's medianMs in the same setting: how many times slower than splade-lab. */
  timeOverSpladeLab?: number;
  /** gpuBytes / splade-lab's gpuBytes. */
  bytesOverSpladeLab?: number;
  /** |step1Loss - splade-lab's| / |splade-lab's| <= LOSS_TOLERANCE. */
  sameStep1Loss?: boolean;
  /** What is compared with splade-lab's row: "CPU vs CPU" (e.g. PyTorch against splade-lab on SwiftShader), "GPU vs GPU"... */
  comparison?: string;
}

interface Skipped {
  system: PeerSystemName;
  setting: PeerSetting;
  environment: PeerRow['environment'];
  why: string;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      out: { type: 'string' },
      systems: { type: 'string', default: SYSTEMS.join(',') },
      settings: { type: 'string', default: PEER_SETTINGS.join(',') },
      reps: { type: 'string', default: '3' },
      size: { type: 'string', default: 'bench' },
      'torch-threads': { type: 'string', default: String(availableParallelism()) },
      python: { type: 'string' },
      'timeout-s': { type: 'string', default: '1800' },
      gpu: { type: 'boolean', default: false },
      where: { type: 'string', default: 'node' },
      'skip-inference': { type: 'boolean', default: false },
      'peak-tflops': { type: 'string' },
    },
    strict: true,
  });
  const systems = listOption(values.systems, SYSTEMS, 'system');
  const settings = listOption(values.settings, PEER_SETTINGS, 'setting');
  const where = listOption(values.where, ENVIRONMENTS, 'environment');
  const reps = positiveInteger(values.reps, '--reps');
  const size = oneOf(values.size, PEER_SIZES, '--size');
  const threads = positiveInteger(values['torch-threads'], '--torch-threads');
  const timeoutMs = positiveInteger(values['timeout-s'], '--timeout-s') * 1000;
  const python =
    systems.includes('pytorch-cpu') || !values['skip-inference'] ? findTorchPython(values.python) : { why: 'not asked for' };
  const peakTflops = values['peak-tflops'] === undefined ? null : positiveNumber(values['peak-tflops'], '--peak-tflops');
  const gpu = values.gpu ? await runGpuMode(size, peakTflops) : undefined;
  if (gpu) printTable('GPU mode', gpu.rows);
  const rows: PeerRow[] = [];
  const skipped: Skipped[] = [];
  for (const setting of where.includes('node') ? settings : []) {
    for (const system of systems) {
      console.error(`${setting}: ${system} ...`);
      const outcome = await runSystem(system, setting, { reps, size, python, threads, timeoutMs });
      if ('why' in outcome) skipped.push({ system, setting, environment: 'node', why: outcome.why });
      else rows.push({ ...outcome, environment: 'node' });
    }
  }
  const runs = where.includes('chromium')
    ? settings.flatMap((setting) => systems.filter((system) => system !== 'pytorch-cpu').map((system) => ({ system, setting })))
    : [];
  if (runs.length) {
    console.error(`Chromium: ${runs.length} runs ...`);
    // loaded only here: Chromium's launcher and Vite are not needed (nor installed on a GPU machine's kit) for Node rows
    const { runInChromium } = await import('./peers/browser-run.ts');
    const outcomes = await runInChromium(runs, size, reps, timeoutMs);
    outcomes.forEach((outcome, i) => {
      if ('why' in outcome) skipped.push({ ...runs[i], environment: 'chromium', why: outcome.why });
      else rows.push({ ...outcome, environment: 'chromium' });
    });
  }
  compareWithSpladeLab(rows);
  printPeers(rows, skipped);
  const inference = !values['skip-inference']
    ? await runInferencePeers(size, python, reps, where.includes('chromium'), timeoutMs)
    : undefined;
  if (inference) printInference(inference);
  const ours = rows.filter((r) => r.system === 'splade-lab');
  const adapter = (ours.find((r) => r.environment === 'node') ?? ours[0])?.adapter ?? 'unknown';
  if (values.out) {
    const shapes = Object.fromEntries(settings.map((s) => [s, makePeerProblem(s, size).dims]));
    const report = {
      adapter,
      date: new Date().toISOString(),
      size,
      lossTolerance: LOSS_TOLERANCE,
      shapes,
      rows,
      skipped,
      ...(gpu ? { gpu } : {}),
      ...(inference ? { inference } : {}),
    };
    writeFileSync(values.out, JSON.stringify(report, null, 2) + '\n');
    console.log(`wrote ${values.out}`);
  }
  const mismatched = rows.filter((r) => r.sameStep1Loss === false);
  if (mismatched.length) {
    console.error(
      `step-1 loss differs from splade-lab's beyond ${LOSS_TOLERANCE} (relative): ${mismatched.map((r) => `${r.system} ${r.setting}`).join(', ')}`,
    );
    process.exitCode = 1;
  }
}

function listOption<T extends string>(text: string, known: readonly T[], what: string): T[] {
  const asked = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of asked) if (!known.includes(name as T)) throw new Error(`unknown ${what} "${name}" (${known.join(', ')})`);
  return asked as T[];
}

function oneOf<T extends string>(text: string, known: readonly T[], flag: string): T {
  if (!known.includes(text as T)) throw new Error(`${flag} takes one of ${known.join(', ')}, got "${text}"`);
  return text as T;
}

function positiveNumber(text: string, flag: string): number {
  const n = Number(text);
  if (!(Number.isFinite(n) && n > 0)) throw new Error(`${flag} takes a positive number, got "${text}"`);
  return n;
}

function positiveInteger(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} takes a positive integer, got "${text}"`);
  return n;
}

/** The first python that imports torch: --python, else python3 on the PATH, else Debian's /usr/bin/python3. */
function findTorchPython(asked: string | undefined): { command: string } | { why: string } {
  const candidates = asked ? [asked] : ['python3', '/usr/bin/python3'];
  for (const command of candidates) {
    const probe = spawnSync(command, ['-c', 'import torch'], { encoding: 'utf8' });
    if (probe.status === 0) return { command };
  }
  return { why: `no python with torch (tried ${candidates.join(', ')}; Debian: apt-get install python3-torch)` };
}

interface RunOptions {
  reps: number;
  size: PeerSize;
  python: { command: string } | { why: string };
  threads: number;
  timeoutMs: number;
}

async function runSystem(
  system: PeerSystemName,
  setting: PeerSetting,
  options: RunOptions,
): Promise<PeerResult | { why: string }> {
  const { reps, size } = options;
  if (system !== 'pytorch-cpu') {
    const script = join(import.meta.dirname, 'peers', 'run-system.ts');
    return runChild(
      process.execPath,
      ['--import', './bin/register-hooks.mjs', script, system, setting, String(reps), size],
      options.timeoutMs,
    );
  }
  if ('why' in options.python) return { why: options.python.why };
  const folder = mkdtempSync(join(tmpdir(), 'splade-peers-'));
  try {
    writeProblemFolder(makePeerProblem(setting, size), folder);
    const script = join(import.meta.dirname, 'peers', 'pytorch_step.py');
    return await runChild(options.python.command, [script, folder, String(reps), String(options.threads)], options.timeoutMs);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Runs one system's process; its result line, or why there is none (its last lines of stderr). */
function runChild(command: string, args: string[], timeoutMs: number): Promise<PeerResult | { why: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', (error) => resolve({ why: `could not start ${command}: ${error.message}` }));
    child.on('close', (code, signal) => {
      const line = stdout.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (code === 0 && line) return resolve(JSON.parse(line.slice(RESULT_PREFIX.length)) as PeerResult);
      const tail = stderr.trim().split('\n').slice(-3).join(' | ');
      resolve({
        why: signal ? `stopped by ${signal} (over ${timeoutMs / 1000} s?)` : `exit ${code}: ${tail || 'no result line'}`,
      });
    });
  });
}

function compareWithSpladeLab(rows: PeerRow[]): void {
  for (const row of rows) {
    const ours = rows.find((r) => r.system === 'splade-lab' && r.setting === row.setting && r.environment === row.environment);
    if (!ours || row === ours) continue;
    row.timeOverSpladeLab = row.medianMs / ours.medianMs;
    if (row.gpuBytes !== null && ours.gpuBytes) row.bytesOverSpladeLab = row.gpuBytes / ours.gpuBytes;
    row.sameStep1Loss = Math.abs(row.step1Loss - ours.step1Loss) <= LOSS_TOLERANCE * Math.abs(ours.step1Loss);
    row.comparison = `${row.onCpu ? 'CPU' : 'GPU'} vs ${ours.onCpu ? 'CPU' : 'GPU'}`;
  }
}

function printPeers(rows: PeerRow[], skipped: Skipped[]): void {
  const header = [
    'where',
    'setting',
    'system',
    'median ms',
    'x splade-lab',
    'compared',
    'GPU MB',
    'x bytes',
    'step-1 loss',
    'same',
    'on',
  ];
  const body = rows.map((r) => [
    r.environment,
    r.setting,
    r.system,
    r.medianMs.toFixed(1),
    r.timeOverSpladeLab?.toFixed(2) ?? '',
    r.comparison ?? '',
    r.gpuBytes === null ? '' : (r.gpuBytes / 2 ** 20).toFixed(1),
    r.bytesOverSpladeLab?.toFixed(1) ?? '',
    r.step1Loss.toPrecision(8),
    r.sameStep1Loss === undefined ? '' : r.sameStep1Loss ? 'yes' : 'NO',
    r.adapter,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 3 || i === cells.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(header));
  for (const row of body) console.log(line(row));
  for (const s of skipped) console.log(`skipped ${s.system} (${s.setting}, ${s.environment}): ${s.why}`);
}

function printInference(report: InferenceReport): void {
  console.log('\ninference: SPLADE encoding of documents (no padding), 8 per batch');
  for (const row of report.rows) {
    const diff =
      row.maxAbsDiffVsSpladeLab === null ? '' : `, max |diff| vs splade-lab ${row.maxAbsDiffVsSpladeLab.toExponential(2)}`;
    console.log(
      `${row.environment.padEnd(8)} ${row.system.padEnd(24)} length ${String(row.length).padStart(4)}: ${row.documentsPerSecond.toFixed(2).padStart(9)} documents/s${diff}`,
    );
  }
  for (const s of report.skipped) console.log(`skipped ${s.system}: ${s.why}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});

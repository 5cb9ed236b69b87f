// The peers bench's inference rows (`--inference`): SPLADE encoding throughput (documents/s at lengths 128 and 256)
// of the tiny encoder in splade-lab and in onnxruntime-web (the runtime under today's in-browser SPLADE viewers and
// transformers.js) on the same weights, exported to ONNX by PyTorch's exporter; the vectors are compared.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Ort from 'onnxruntime-web';
import type { GpuContext } from '../../src/gpu/context.ts';
import { nodeGpuContext } from '../../src/gpu/node-gpu.ts';
import { SpladeHead } from '../../src/kernels/splade-head.ts';
import { GpuEncoderPass } from '../../src/model/gpu-encoder.ts';
import { GpuModel } from '../../src/model/gpu-model.ts';
import { loadParameters } from '../../src/model/weights.ts';
import { Random } from '../../src/util/random.ts';
import { median } from '../bench/timing.ts';
import { makePeerProblem, tinyEncoderCheckpoint, type PeerDims, type PeerProblem, type PeerSize } from './problem.ts';
import { writeProblemFolder } from './pytorch-problem.ts';

const BATCH = 8;
const SHAPES: Record<PeerSize, { lengths: number[]; documents: number }> = {
  bench: { lengths: [128, 256], documents: 32 },
  small: { lengths: [16, 24], documents: 16 },
};
/**
 * onnxruntime-web's WebAssembly backend. Its WebGPU backend does not start on Dawn's Node bindings (it calls forEach
 * on the device's feature set, which Dawn's Node objects lack), so it is measured only where a browser runs it.
 */
const EXECUTION_PROVIDERS = ['wasm'] as const;

export interface InferenceRow {
  system: 'splade-lab' | `onnxruntime-web-${(typeof EXECUTION_PROVIDERS)[number]}`;
  length: number;
  documentsPerSecond: number;
  /** Largest |difference| of a SPLADE weight from splade-lab's for the same documents. */
  maxAbsDiffVsSpladeLab: number | null;
}

export interface InferenceReport {
  rows: InferenceRow[];
  skipped: { system: string; why: string }[];
}

/** Documents of `length` real tokens (no padding), BATCH per row block, the same in every system. */
function documentIds(dims: PeerDims, length: number, count: number): Int32Array {
  const random = new Random(length);
  return Int32Array.from({ length: count * length }, () => 1000 + random.int(dims.V - 1000));
}

export async function runInferencePeers(size: PeerSize, python: { command: string } | { why: string }, reps: number): Promise<InferenceReport> {
  const { lengths, documents } = SHAPES[size];
  const problem = makePeerProblem('tiny-encoder', size, 7, Math.max(...lengths));
  const report: InferenceReport = { rows: [], skipped: [] };
  const ours = new Map<number, Float32Array>();
  const ctx = await nodeGpuContext('peers bench, inference');
  try {
    for (const length of lengths) {
      const { vectors, seconds } = await spladeLabEncode(ctx, problem, documentIds(problem.dims, length, documents), length, reps);
      ours.set(length, vectors);
      report.rows.push({ system: 'splade-lab', length, documentsPerSecond: documents / seconds, maxAbsDiffVsSpladeLab: null });
    }
  } finally {
    ctx.destroy();
  }
  if ('why' in python) {
    report.skipped.push({ system: 'onnxruntime-web', why: `the ONNX export needs PyTorch: ${python.why}` });
    return report;
  }
  const folder = mkdtempSync(join(tmpdir(), 'splade-onnx-'));
  try {
    writeProblemFolder(problem, folder);
    for (const length of lengths) {
      const model = join(folder, `model-T${length}.onnx`);
      const exported = spawnSync(python.command, [join(import.meta.dirname, 'export_onnx.py'), folder, String(BATCH), String(length), model], { encoding: 'utf8' });
      if (exported.status !== 0) {
        report.skipped.push({ system: 'onnxruntime-web', why: `the ONNX export failed: ${exported.stderr.trim().split('\n').slice(-2).join(' | ')}` });
        return report;
      }
      for (const provider of EXECUTION_PROVIDERS) {
        const system = `onnxruntime-web-${provider}` as const;
        try {
          const { vectors, seconds } = await onnxEncode(loadOnnxRuntime(), readFileSync(model), provider, documentIds(problem.dims, length, documents), length, problem.dims.V, reps);
          const reference = ours.get(length)!;
          const diff = vectors.reduce((worst, x, i) => Math.max(worst, Math.abs(x - reference[i])), 0);
          report.rows.push({ system, length, documentsPerSecond: documents / seconds, maxAbsDiffVsSpladeLab: diff });
        } catch (error) {
          report.skipped.push({ system: `${system} (length ${length})`, why: error instanceof Error ? error.message.split('\n')[0] : String(error) });
        }
      }
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  return report;
}

/** Median seconds over `reps` runs of encoding every document, and the vectors (documents, V) of the last run. */
async function timeRuns(reps: number, run: () => Promise<Float32Array>): Promise<{ vectors: Float32Array; seconds: number }> {
  let vectors = await run(); // warm-up: compiles pipelines
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const started = performance.now();
    vectors = await run();
    times.push((performance.now() - started) / 1000);
  }
  return { vectors, seconds: median(times) };
}

async function spladeLabEncode(ctx: GpuContext, problem: PeerProblem, ids: Int32Array, T: number, reps: number) {
  const { checkpoint, config } = tinyEncoderCheckpoint(problem.dims, problem.seed);
  const model = GpuModel.upload(ctx, config, loadParameters(config, checkpoint.tensors));
  const { d, V } = problem.dims;
  const pass = new GpuEncoderPass(model, BATCH, T, `inference T=${T}`);
  const head = new SpladeHead(ctx, { B: BATCH, T, d, V });
  const pooled = ctx.tensor('inference pooled', [BATCH, V], 'f32');
  const argmax = ctx.tensor('inference argmax', [BATCH, V], 'u32');
  const mask = new Uint8Array(BATCH * T).fill(1);
  const documents = ids.length / T;
  return timeRuns(reps, async () => {
    const out = new Float32Array(documents * V);
    for (let start = 0; start < documents; start += BATCH) {
      pass.setInputs(ids.subarray(start * T, (start + BATCH) * T), mask);
      await ctx.run(`inference T=${T}`, (encoder) => {
        pass.forward(encoder);
        head.forward(encoder, { hidden: pass.headHidden, mask: pass.mask, weight: model.decoderWeight, bias: model.decoderBias, pooled, argmax });
      });
      out.set(await ctx.read(pooled, BATCH * V), start * V);
    }
    return out;
  });
}

/** onnxruntime-web's Node build, its WebAssembly backend on every core (as splade-lab's SwiftShader uses them). */
function loadOnnxRuntime(): typeof Ort {
  const ort = createRequire(import.meta.url)('onnxruntime-web') as typeof Ort;
  ort.env.wasm.numThreads = availableParallelism();
  return ort;
}

async function onnxEncode(ort: typeof Ort, model: Uint8Array, provider: string, ids: Int32Array, T: number, V: number, reps: number) {
  const session = await ort.InferenceSession.create(model, { executionProviders: [provider] });
  const documents = ids.length / T;
  const mask = new ort.Tensor('int64', new BigInt64Array(BATCH * T).fill(1n), [BATCH, T]);
  try {
    return await timeRuns(reps, async () => {
      const out = new Float32Array(documents * V);
      for (let start = 0; start < documents; start += BATCH) {
        const batch = BigInt64Array.from(ids.subarray(start * T, (start + BATCH) * T), (id) => BigInt(id));
        const result = await session.run({ input_ids: new ort.Tensor('int64', batch, [BATCH, T]), attention_mask: mask });
        out.set((await result.splade.getData()) as Float32Array, start * V);
      }
      return out;
    });
  } finally {
    await session.release();
  }
}

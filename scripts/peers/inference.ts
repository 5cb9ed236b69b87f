// The peers bench's inference rows: exports the tiny encoder to ONNX with PyTorch's exporter (where python3 imports
// torch), then measures encoding in Node (onnxruntime-web's WebAssembly backend; its WebGPU backend does not start on
// Dawn's Node bindings, which lack forEach on a feature set) and, asked, in Chromium (its WebGPU backend).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Ort from 'onnxruntime-web';
import { nodeGpuContext } from '../../src/gpu/webgpu-node.ts';
import { ENCODE_BATCH, INFERENCE_SHAPES, inferenceProblem, measureInference, type InferenceReport } from './encode-systems.ts';
import type { PeerSize } from './problem.ts';
import { writeProblemFolder } from './pytorch-problem.ts';

export async function runInferencePeers(
  size: PeerSize,
  python: { command: string } | { why: string },
  reps: number,
  chromium: boolean,
  timeoutMs: number,
): Promise<InferenceReport> {
  const folder = mkdtempSync(join(tmpdir(), 'splade-onnx-'));
  try {
    const models =
      'why' in python ? { why: `the ONNX export needs PyTorch: ${python.why}` } : exportModels(size, python.command, folder);
    const onnx =
      'why' in models
        ? undefined
        : { ort: nodeOnnxRuntime(), providers: ['wasm'], model: async (length: number) => readFileSync(models.get(length)!) };
    const report = await measureInference(size, reps, {
      environment: 'node',
      acquire: () => nodeGpuContext('peers bench, inference'),
      onnx,
    });
    if ('why' in models) {
      report.skipped.push({ system: 'onnxruntime-web', why: models.why });
    } else if (chromium) {
      const { runInferenceInChromium } = await import('./browser-run.ts');
      const inBrowser = await runInferenceInChromium(size, reps, models, timeoutMs);
      report.rows.push(...inBrowser.rows);
      report.skipped.push(...inBrowser.skipped);
    }
    return report;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** One ONNX file per length (fixed batch and length), or why there is none. */
function exportModels(size: PeerSize, python: string, folder: string): Map<number, string> | { why: string } {
  writeProblemFolder(inferenceProblem(size), folder);
  const models = new Map<number, string>();
  for (const length of INFERENCE_SHAPES[size].lengths) {
    const model = join(folder, `model-T${length}.onnx`);
    const exported = spawnSync(
      python,
      [join(import.meta.dirname, 'export_onnx.py'), folder, String(ENCODE_BATCH), String(length), model],
      { encoding: 'utf8' },
    );
    if (exported.status !== 0)
      return { why: `the ONNX export failed: ${exported.stderr.trim().split('\n').slice(-2).join(' | ')}` };
    models.set(length, model);
  }
  return models;
}

/** onnxruntime-web's Node build, its WebAssembly backend on every core (as SwiftShader uses them). */
function nodeOnnxRuntime(): typeof Ort {
  const ort = createRequire(import.meta.url)('onnxruntime-web') as typeof Ort;
  ort.env.wasm.numThreads = availableParallelism();
  return ort;
}

// The peers bench's inference measurement, the same in Node and in Chromium: SPLADE encoding of the same documents
// by splade-lab (encoder pass and fused head) and by onnxruntime-web on the exported model, with the vectors compared.
import type * as Ort from 'onnxruntime-web';
import type { GpuContext } from '../../src/gpu/context.ts';
import { SpladeHead } from '../../src/kernels/splade-head.ts';
import { GpuEncoderPass } from '../../src/model/gpu-encoder.ts';
import { GpuModel } from '../../src/model/gpu-model.ts';
import { loadParameters } from '../../src/model/weights.ts';
import { Random } from '../../src/util/random.ts';
import { medianMs } from '../bench/timing.ts';
import { makePeerProblem, tinyEncoderCheckpoint, type PeerProblem, type PeerSize } from './problem.ts';

/** Documents per GPU batch (and per exported model's fixed batch). */
export const ENCODE_BATCH = 8;
export const INFERENCE_SHAPES: Record<PeerSize, { lengths: number[]; documents: number }> = {
  bench: { lengths: [128, 256], documents: 32 },
  small: { lengths: [16, 24], documents: 16 },
};

export interface InferenceRow {
  /** splade-lab, or onnxruntime-web-<execution provider>. */
  system: string;
  environment: 'node' | 'chromium';
  length: number;
  documentsPerSecond: number;
  /** Largest |difference| of a SPLADE weight from splade-lab's (same place, same documents). */
  maxAbsDiffVsSpladeLab: number | null;
}

export interface InferenceReport {
  rows: InferenceRow[];
  skipped: { system: string; why: string }[];
}

/** The tiny encoder of the tiny-encoder setting, with positions for the longest length. */
export function inferenceProblem(size: PeerSize): PeerProblem {
  return makePeerProblem('tiny-encoder', size, 7, Math.max(...INFERENCE_SHAPES[size].lengths));
}

export interface InferenceSystems {
  environment: InferenceRow['environment'];
  acquire: () => Promise<GpuContext>;
  /** onnxruntime-web, its execution providers to try, and the exported model of each length (absent: none). */
  onnx?: { ort: typeof Ort; providers: string[]; model: (length: number) => Promise<Uint8Array> };
}

export async function measureInference(size: PeerSize, reps: number, systems: InferenceSystems): Promise<InferenceReport> {
  const { lengths, documents } = INFERENCE_SHAPES[size];
  const problem = inferenceProblem(size);
  const report: InferenceReport = { rows: [], skipped: [] };
  const ours = new Map<number, Float32Array>();
  const ctx = await systems.acquire();
  try {
    for (const length of lengths) {
      const { vectors, seconds } = await spladeLabEncode(ctx, problem, documentIds(problem, length, documents), length, reps);
      ours.set(length, vectors);
      report.rows.push({
        system: 'splade-lab',
        environment: systems.environment,
        length,
        documentsPerSecond: documents / seconds,
        maxAbsDiffVsSpladeLab: null,
      });
    }
  } finally {
    ctx.destroy();
  }
  const onnx = systems.onnx;
  for (const provider of onnx?.providers ?? []) {
    const system = `onnxruntime-web-${provider}`;
    try {
      for (const length of lengths) {
        const { vectors, seconds } = await onnxEncode(
          onnx!.ort,
          await onnx!.model(length),
          provider,
          documentIds(problem, length, documents),
          length,
          problem.dims.V,
          reps,
        );
        const reference = ours.get(length)!;
        const diff = vectors.reduce((worst, x, i) => Math.max(worst, Math.abs(x - reference[i])), 0);
        report.rows.push({
          system,
          environment: systems.environment,
          length,
          documentsPerSecond: documents / seconds,
          maxAbsDiffVsSpladeLab: diff,
        });
      }
    } catch (error) {
      report.skipped.push({
        system: `${system} (${systems.environment})`,
        why: error instanceof Error ? error.message.split('\n')[0] : String(error),
      });
    }
  }
  return report;
}

/** Documents of `length` real tokens (no padding), the same in every system. */
function documentIds(problem: PeerProblem, length: number, count: number): Int32Array {
  const random = new Random(length);
  return Int32Array.from({ length: count * length }, () => 1000 + random.int(problem.dims.V - 1000));
}

/** Median seconds over `reps` runs of encoding every document, and the vectors (documents, V) of the last run. */
async function timeRuns(reps: number, run: () => Promise<Float32Array>): Promise<{ vectors: Float32Array; seconds: number }> {
  let vectors = await run(); // warm-up: compiles pipelines
  const ms = await medianMs(reps, async () => {
    vectors = await run();
  });
  return { vectors, seconds: ms / 1000 };
}

async function spladeLabEncode(ctx: GpuContext, problem: PeerProblem, ids: Int32Array, T: number, reps: number) {
  const { checkpoint, config } = tinyEncoderCheckpoint(problem.dims, problem.seed);
  const model = GpuModel.upload(ctx, config, loadParameters(config, checkpoint.tensors));
  const { d, V } = problem.dims;
  const B = ENCODE_BATCH;
  const pass = new GpuEncoderPass(model, B, T, `inference T=${T}`);
  const head = new SpladeHead(ctx, { B, T, d, V });
  const pooled = ctx.tensor('inference pooled', [B, V], 'f32');
  const argmax = ctx.tensor('inference argmax', [B, V], 'u32');
  const mask = new Uint8Array(B * T).fill(1);
  const documents = ids.length / T;
  return timeRuns(reps, async () => {
    const out = new Float32Array(documents * V);
    for (let start = 0; start < documents; start += B) {
      pass.setInputs(ids.subarray(start * T, (start + B) * T), mask);
      await ctx.run(`inference T=${T}`, (encoder) => {
        pass.forward(encoder);
        head.forward(encoder, {
          hidden: pass.headHidden,
          mask: pass.mask,
          weight: model.decoderWeight,
          bias: model.decoderBias,
          pooled,
          argmax,
        });
      });
      out.set(await ctx.read(pooled, B * V), start * V);
    }
    return out;
  });
}

async function onnxEncode(
  ort: typeof Ort,
  model: Uint8Array,
  provider: string,
  ids: Int32Array,
  T: number,
  V: number,
  reps: number,
) {
  const session = await ort.InferenceSession.create(model, { executionProviders: [provider] });
  const B = ENCODE_BATCH;
  const documents = ids.length / T;
  const mask = new ort.Tensor('int64', new BigInt64Array(B * T).fill(1n), [B, T]);
  try {
    return await timeRuns(reps, async () => {
      const out = new Float32Array(documents * V);
      for (let start = 0; start < documents; start += B) {
        const batch = BigInt64Array.from(ids.subarray(start * T, (start + B) * T), (id) => BigInt(id));
        const result = await session.run({ input_ids: new ort.Tensor('int64', batch, [B, T]), attention_mask: mask });
        out.set((await result.splade.getData()) as Float32Array, start * V);
      }
      return out;
    });
  } finally {
    await session.release();
  }
}

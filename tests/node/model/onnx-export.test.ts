// `splade-lab export-onnx`: the file's graph (int64 dynamic inputs, token_type_ids optional, one [batch, V] output, the
// tied matrix stored once, size within 1.05 x model.safetensors) and its vectors in onnxruntime-web and onnxruntime-node
// equal `splade-lab encode` and the float64 reference (head divided by k), on padded batches of 100 seeded texts, for
// every family and an untied decoder.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Ort from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxSequenceTokens } from '../../../src/contract/model/max-tokens.ts';
import type { Architecture } from '../../../src/contract/model/model-config.ts';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { decodeOnnxModel, OnnxDataType } from '../../../src/io/formats/onnx-proto.ts';
import { decoderWeightName } from '../../../src/model/layout.ts';
import { loadModel, type LoadedModel } from '../../../src/model/load-model.ts';
import { spladeForward } from '../../../src/model/reference/splade.ts';
import type { TinyModelOptions } from '../../../src/model/tiny-model.ts';
import { toFloat64Params } from '../../../src/model/weights.ts';
import { Random } from '../../../src/util/random.ts';
import { runCli } from '../../helpers/cli.ts';
import { TINY_WORDS, writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

/** Wide enough that the graph's own bytes (names, nodes) are small beside the weights, as in a real model. */
const SIZES = { hidden: 64, heads: 4, intermediate: 128, maxPositions: 24 };
const CASES = {
  bert: { arch: 'bert', options: {} },
  roberta: { arch: 'roberta', options: {} },
  distilbert: { arch: 'distilbert', options: {} },
  modernbert: { arch: 'modernbert', options: { localAttention: 4, globalAttnEveryNLayers: 2 } },
  gte: { arch: 'gte', options: { ropeScalingFactor: 2 } },
  albert: { arch: 'albert', options: { embeddingSize: 32, hiddenGroups: 1, innerGroupNum: 1 } },
  'bert-untied': { arch: 'bert', options: { tieWordEmbeddings: false } },
} as const satisfies Record<string, { arch: Architecture; options: Partial<TinyModelOptions> }>;
type Case = keyof typeof CASES;
const K = 2;
const TEXT_COUNT = 100;
const BATCH = 8;
const TOLERANCE = 1e-5;

interface Exported {
  dir: string;
  model: LoadedModel;
  onnx: Uint8Array;
  /** The model's longest sequence, in tokens: every tenth text reaches it. */
  maxLength: number;
  texts: string[];
}

let root: string;
const exported = {} as Record<Case, Exported>;
const requireHere = createRequire(import.meta.url);
const ortWeb = requireHere('onnxruntime-web') as typeof Ort;
ortWeb.env.wasm.numThreads = 1;
/** The two runtimes the file must run in: onnxruntime-web (its WebAssembly backend) and onnxruntime-node (native CPU). */
const RUNTIMES = { 'onnxruntime-web': ortWeb, 'onnxruntime-node': requireHere('onnxruntime-node') as typeof Ort } as const;
type Runtime = keyof typeof RUNTIMES;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'onnx-export-'));
  for (const [name, { arch, options }] of Object.entries(CASES)) {
    const dir = join(root, name);
    await writeTinySpladeModel(dir, arch, { ...SIZES, ...options });
    const out = join(dir, 'model.onnx');
    const run = await runCli('export-onnx', '--model', dir, '--k', String(K), '--out', out);
    expect(run.code, run.stderr).toBe(0);
    const model = await loadModel(createFolderSource(dir));
    const maxLength = maxSequenceTokens(model.config);
    exported[name as Case] = { dir, model, onnx: new Uint8Array(await readFile(out)), maxLength, texts: seededTexts(maxLength) };
  }
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** Random word sequences; every tenth one longer than the model reads (cut at maxLength tokens). */
function seededTexts(maxLength: number): string[] {
  const random = new Random(32);
  return Array.from({ length: TEXT_COUNT }, (_, i) => {
    const words = i % 10 === 0 ? maxLength + 5 : 1 + random.int(maxLength - 2);
    return Array.from({ length: words }, () => TINY_WORDS[random.int(TINY_WORDS.length)]).join(' ');
  });
}

/** The file's vectors (text, V) from a runtime (default onnxruntime-web), in padded batches. */
async function onnxVectors(
  onnx: Uint8Array,
  { model, texts, maxLength }: Exported,
  runtime: Runtime = 'onnxruntime-web',
): Promise<Float32Array[]> {
  const ort = RUNTIMES[runtime];
  const session = await ort.InferenceSession.create(onnx);
  const V = model.config.vocabSize;
  const vectors: Float32Array[] = [];
  try {
    for (let start = 0; start < texts.length; start += BATCH) {
      const encodings = texts.slice(start, start + BATCH).map((text) => model.tokenizer.encode(text, { maxLength }));
      const B = encodings.length;
      const T = Math.max(...encodings.map((e) => e.ids.length));
      const ids = new BigInt64Array(B * T).fill(BigInt(model.config.padTokenId));
      const mask = new BigInt64Array(B * T);
      encodings.forEach((e, b) => e.ids.forEach((id, t) => ((ids[b * T + t] = BigInt(id)), (mask[b * T + t] = 1n))));
      const result = await session.run({
        input_ids: new ort.Tensor('int64', ids, [B, T]),
        attention_mask: new ort.Tensor('int64', mask, [B, T]),
      });
      const output = result.sparse_vector;
      expect(output.dims).toEqual([B, V]);
      const data = output.data as Float32Array;
      for (let b = 0; b < B; b++) vectors.push(data.slice(b * V, (b + 1) * V));
    }
  } finally {
    await session.release();
  }
  return vectors;
}

/** `splade-lab encode --format qdrant --k K` of the texts, as dense (text, V) rows. */
async function encodeVectors({ dir, model, texts, maxLength }: Exported): Promise<Float64Array[]> {
  const input = join(dir, 'texts.jsonl');
  const output = join(dir, 'vectors.jsonl');
  await writeFile(input, texts.map((text, i) => JSON.stringify({ _id: `t${i}`, text })).join('\n') + '\n');
  const run = await runCli(
    'encode',
    ...[
      '--model',
      dir,
      '--in',
      input,
      '--out',
      output,
      '--format',
      'qdrant',
      '--k',
      String(K),
      '--max-length',
      String(maxLength),
    ],
  );
  expect(run.code, run.stderr).toBe(0);
  const lines = (await readFile(output, 'utf8')).trim().split('\n');
  return lines.map((line) => {
    const vector = (JSON.parse(line) as { vector: { splade: { indices: number[]; values: number[] } } }).vector.splade;
    const dense = new Float64Array(model.config.vocabSize);
    vector.indices.forEach((index, j) => (dense[index] = vector.values[j]));
    return dense;
  });
}

/** The float64 reference of each text alone (no padding), decoder (a tied one: the embeddings too) divided by k. */
function referenceVectors({ model, texts, maxLength }: Exported): Float64Array[] {
  const { config } = model;
  const params = toFloat64Params(model.params);
  const divided = params[decoderWeightName(config)];
  for (let i = 0; i < divided.length; i++) divided[i] /= K;
  return texts.map((text) => {
    const ids = model.tokenizer.encode(text, { maxLength }).ids;
    return spladeForward(config, params, { ids: Int32Array.from(ids), mask: ids.map(() => 1), B: 1, T: ids.length }).pooled;
  });
}

function maxAbsDifference(a: ArrayLike<number>[], b: ArrayLike<number>[]): number {
  expect(a.length).toBe(b.length);
  let max = 0;
  a.forEach((row, i) => {
    for (let v = 0; v < row.length; v++) max = Math.max(max, Math.abs(row[v] - b[i][v]));
  });
  return max;
}

describe.each(Object.keys(CASES) as Case[])('export-onnx %s', (name) => {
  it('declares int64 batch x sequence inputs (token_type_ids optional) and one float32 batch x vocabulary output', () => {
    const { graph } = decodeOnnxModel(exported[name].onnx);
    const V = exported[name].model.config.vocabSize;
    const shapeOf = (info: (typeof graph.input)[number]) =>
      info.type.tensorType.shape.dim.map((d) =>
        'dimParam' in d && d.dimParam ? d.dimParam : (d as { dimValue: number }).dimValue,
      );
    expect(graph.input.map((i) => [i.name, i.type.tensorType.elemType, shapeOf(i)])).toEqual([
      ['input_ids', OnnxDataType.INT64, ['batch', 'sequence']],
      ['attention_mask', OnnxDataType.INT64, ['batch', 'sequence']],
      ['token_type_ids', OnnxDataType.INT64, ['batch', 'sequence']],
    ]);
    // an input with an initializer of its name is one a caller may leave out (tests/node/model/onnx-export-engines.test.ts)
    expect(graph.initializer.filter((t) => t.name === 'token_type_ids').map((t) => t.dims)).toEqual([[1, 1]]);
    expect(graph.output.map((o) => [o.name, o.type.tensorType.elemType, shapeOf(o)])).toEqual([
      ['sparse_vector', OnnxDataType.FLOAT, ['batch', V]],
    ]);
  });

  it('stores each vocabulary matrix once: a tied one read by the embedding Gather and the decoder Gemm (transB)', () => {
    const { config } = exported[name].model;
    const { graph } = decodeOnnxModel(exported[name].onnx);
    const vocabularySized = graph.initializer.filter(
      (t) => t.dims.reduce((a, b) => a * b, 1) === config.vocabSize * config.embeddingSize,
    );
    const readers = (matrix: string) => graph.node.filter((n) => n.input.includes(matrix)).map((n) => n.opType);
    const matrices = config.tieWordEmbeddings ? ['embeddings.word.weight'] : ['embeddings.word.weight', 'decoder.weight'];
    expect(vocabularySized.map((t) => [t.name, t.dims])).toEqual(
      matrices.map((matrix) => [matrix, [config.vocabSize, config.embeddingSize]]),
    );
    expect(matrices.flatMap(readers).sort()).toEqual(['Gather', 'Gemm']);
    const gemm = graph.node.find((n) => n.opType === 'Gemm')!;
    expect(gemm.input[1]).toBe(matrices.at(-1));
    expect(gemm.attribute.find((a) => a.name === 'transB')?.i).toBe(1);
  });

  it('is at most 1.05 x the size of model.safetensors', async () => {
    const weights = (await stat(join(exported[name].dir, 'model.safetensors'))).size;
    expect(exported[name].onnx.length / weights).toBeLessThanOrEqual(1.05);
  });

  it(`gives the vectors of splade-lab encode and of the float64 reference at k = ${K}, padded batches, within ${TOLERANCE}, in onnxruntime-web and onnxruntime-node`, async () => {
    const fromEncode = await encodeVectors(exported[name]);
    const fromReference = referenceVectors(exported[name]);
    expect(fromEncode.every((row) => row.some((w) => w > 0))).toBe(true);
    for (const runtime of Object.keys(RUNTIMES) as Runtime[]) {
      const fromOnnx = await onnxVectors(exported[name].onnx, exported[name], runtime);
      expect(maxAbsDifference(fromOnnx, fromEncode), `${runtime} against encode`).toBeLessThanOrEqual(TOLERANCE);
      expect(maxAbsDifference(fromOnnx, fromReference), `${runtime} against float64`).toBeLessThanOrEqual(TOLERANCE);
    }
  });
});

describe('export-onnx options and refusals', () => {
  it('writes the same vectors at opset 18 (ReduceMax axes as an input)', async () => {
    const bert = exported.bert;
    const out = join(bert.dir, 'opset18.onnx');
    const run = await runCli('export-onnx', '--model', bert.dir, '--k', String(K), '--opset', '18', '--out', out);
    expect(run.code, run.stderr).toBe(0);
    const opset18 = new Uint8Array(await readFile(out));
    expect(decodeOnnxModel(opset18).opsetImport).toEqual([{ domain: '', version: 18 }]);
    const few = { ...bert, texts: bert.texts.slice(0, BATCH) };
    expect(maxAbsDifference(await onnxVectors(opset18, few), await onnxVectors(bert.onnx, few))).toBe(0);
  });

  it('refuses an opset outside 17 to 21, and k outside its range, before reading the model', async () => {
    const bert = exported.bert;
    const out = join(bert.dir, 'refused.onnx');
    const opset = await runCli('export-onnx', '--model', bert.dir, '--opset', '16', '--out', out);
    expect(opset.code).not.toBe(0);
    expect(opset.stderr).toContain('opset must be an integer from 17 to 21, got 16');
    const k = await runCli('export-onnx', '--model', bert.dir, '--k', '0', '--out', out);
    expect(k.code).not.toBe(0);
    expect(k.stderr).toContain('k must be a number from 0.25 to 64, got 0');
  });
});

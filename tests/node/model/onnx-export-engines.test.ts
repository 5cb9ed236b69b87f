// `splade-lab export-onnx` for the engines people take the file to: token_type_ids declared (optional by a default
// initializer, or required) and gathered where the family has token types, non-zero ids included; `--output logits`
// equal to the float64 MLM logits (Vespa's splade embedder, sentence-transformers' ONNX backend); `--st-folder` placing
// the logits graph where sentence-transformers v6.0.0 loads it, and refusing what it must not write over.
import { mkdir, mkdtemp, readFile, rm, stat, symlink } from 'node:fs/promises';
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
import { writeSparseEncoderFolder } from '../../helpers/tiny-sparse-encoder-folder.ts';
import { TINY_WORDS, writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

const CASES = {
  bert: { arch: 'bert', options: {} },
  albert: { arch: 'albert', options: { embeddingSize: 8, hiddenGroups: 1, innerGroupNum: 1 } },
  'gte-2-types': { arch: 'gte', options: { typeVocabSize: 2 } },
  roberta: { arch: 'roberta', options: {} },
  distilbert: { arch: 'distilbert', options: {} },
  modernbert: { arch: 'modernbert', options: { localAttention: 4, globalAttnEveryNLayers: 2 } },
} as const satisfies Record<string, { arch: Architecture; options: Partial<TinyModelOptions> }>;
type Case = keyof typeof CASES;
const K = 2;
const PAIRS = 12;
/** Relative to max(1, |float64 value|), as the float32 graph's error grows with the logit's size. */
const TOLERANCE = 1e-5;

const requireHere = createRequire(import.meta.url);
const ortWeb = requireHere('onnxruntime-web') as typeof Ort;
ortWeb.env.wasm.numThreads = 1;
const RUNTIMES = { 'onnxruntime-web': ortWeb, 'onnxruntime-node': requireHere('onnxruntime-node') as typeof Ort } as const;
type Runtime = keyof typeof RUNTIMES;

interface Exported {
  dir: string;
  model: LoadedModel;
  sparse: Uint8Array;
  logits: Uint8Array;
  /** The sparse graph with token_type_ids required. */
  sparseRequired: Uint8Array;
}

let root: string;
const exported = {} as Record<Case, Exported>;
/** The largest error each check measured, printed at the end (the numbers docs/deploy.md quotes). */
const measured = new Map<string, number>();

async function exportWith(dir: string, name: string, ...flags: string[]): Promise<Uint8Array> {
  const out = join(dir, name);
  const run = await runCli('export-onnx', '--model', dir, '--k', String(K), '--out', out, ...flags);
  expect(run.code, run.stderr).toBe(0);
  return new Uint8Array(await readFile(out));
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'onnx-engines-'));
  for (const [name, { arch, options }] of Object.entries(CASES)) {
    const dir = join(root, name);
    await writeTinySpladeModel(dir, arch, { maxPositions: 24, ...options });
    exported[name as Case] = {
      dir,
      model: await loadModel(createFolderSource(dir)),
      sparse: await exportWith(dir, 'sparse.onnx'),
      logits: await exportWith(dir, 'logits.onnx', '--output', 'logits'),
      sparseRequired: await exportWith(dir, 'sparse-required.onnx', '--token-type-ids', 'required'),
    };
  }
});
afterAll(async () => {
  console.log(`max errors: ${JSON.stringify(Object.fromEntries(measured))}`);
  await rm(root, { recursive: true, force: true });
});

function record(key: string, value: number): void {
  measured.set(key, Math.max(measured.get(key) ?? 0, value));
}

/** Seeded text pairs (segment B gets token type 1 in BERT's template), short enough for the model. */
function seededPairs(): [string, string][] {
  const random = new Random(41);
  const words = (n: number) => Array.from({ length: n }, () => TINY_WORDS[random.int(TINY_WORDS.length)]).join(' ');
  return Array.from({ length: PAIRS }, () => [words(1 + random.int(6)), words(1 + random.int(6))]);
}

interface Batch {
  B: number;
  T: number;
  ids: number[][];
  types: number[][];
}

/** The pairs tokenized with their token type ids, padded to one batch. */
function pairBatch(model: LoadedModel): Batch {
  const encodings = seededPairs().map(([a, b]) =>
    model.tokenizer.encode(a, { pair: b, maxLength: maxSequenceTokens(model.config) }),
  );
  const T = Math.max(...encodings.map((e) => e.ids.length));
  return { B: encodings.length, T, ids: encodings.map((e) => e.ids), types: encodings.map((e) => e.typeIds) };
}

function feeds(ort: typeof Ort, model: LoadedModel, batch: Batch, withTypes: boolean): Record<string, Ort.Tensor> {
  const { B, T } = batch;
  const ids = new BigInt64Array(B * T).fill(BigInt(model.config.padTokenId));
  const mask = new BigInt64Array(B * T);
  const types = new BigInt64Array(B * T);
  batch.ids.forEach((row, b) =>
    row.forEach((id, t) => {
      ids[b * T + t] = BigInt(id);
      mask[b * T + t] = 1n;
      types[b * T + t] = BigInt(batch.types[b][t]);
    }),
  );
  const tensor = (data: BigInt64Array) => new ort.Tensor('int64', data, [B, T]);
  return {
    input_ids: tensor(ids),
    attention_mask: tensor(mask),
    ...(withTypes ? { token_type_ids: tensor(types) } : {}),
  };
}

/** The float64 reference of each sequence alone, head divided by k; token types as given where the family has two or more. */
function reference(model: LoadedModel, batch: Batch, withTypes: boolean): { pooled: Float64Array; logits: Float64Array }[] {
  const { config } = model;
  const params = toFloat64Params(model.params);
  const divided = params[decoderWeightName(config)];
  for (let i = 0; i < divided.length; i++) divided[i] /= K;
  return batch.ids.map((ids, b) => {
    const types = withTypes && config.typeVocabSize > 1 ? Int32Array.from(batch.types[b]) : undefined;
    const input = {
      ids: Int32Array.from(ids),
      mask: ids.map(() => 1),
      B: 1,
      T: ids.length,
      ...(types ? { tokenTypes: types } : {}),
    };
    const { pooled, logits } = spladeForward(config, params, input);
    return { pooled, logits };
  });
}

function relativeError(actual: number, expected: number): number {
  return Math.abs(actual - expected) / Math.max(1, Math.abs(expected));
}

async function runSession(runtime: Runtime, onnx: Uint8Array, feed: (ort: typeof Ort) => Record<string, Ort.Tensor>) {
  const ort = RUNTIMES[runtime];
  const session = await ort.InferenceSession.create(onnx);
  try {
    return { inputNames: [...session.inputNames], outputs: await session.run(feed(ort)) };
  } finally {
    await session.release();
  }
}

describe.each(Object.keys(CASES) as Case[])('export-onnx %s: token_type_ids and logits', (name) => {
  it('declares token_type_ids: optional (a [1, 1] zero initializer) in the sparse graph, required in the logits graph', () => {
    const { sparse, logits, model } = exported[name];
    const names = (bytes: Uint8Array) => decodeOnnxModel(bytes).graph.input.map((input) => input.name);
    expect(names(sparse)).toEqual(['input_ids', 'attention_mask', 'token_type_ids']);
    expect(names(logits)).toEqual(['input_ids', 'attention_mask', 'token_type_ids']);
    const defaultOf = (bytes: Uint8Array) => decodeOnnxModel(bytes).graph.initializer.find((t) => t.name === 'token_type_ids');
    const zero = defaultOf(sparse)!;
    expect([zero.dims, zero.dataType, [...new BigInt64Array(new Uint8Array(zero.rawData).buffer)]]).toEqual([
      [1, 1],
      OnnxDataType.INT64,
      [0n],
    ]);
    expect(defaultOf(logits)).toBeUndefined();
    const output = decodeOnnxModel(logits).graph.output[0];
    const dims = output.type.tensorType.shape.dim.map((d) =>
      'dimParam' in d && d.dimParam ? d.dimParam : (d as { dimValue: number }).dimValue,
    );
    expect([output.name, dims]).toEqual(['logits', ['batch', 'sequence', model.config.vocabSize]]);
  });

  it.each(Object.keys(RUNTIMES) as Runtime[])(
    'in %s: the optional input is not listed and input_ids + attention_mask alone give the float64 vectors of token type 0',
    async (runtime) => {
      const { sparse, model } = exported[name];
      const batch = pairBatch(model);
      const { inputNames, outputs } = await runSession(runtime, sparse, (ort) => feeds(ort, model, batch, false));
      expect(inputNames).toEqual(['input_ids', 'attention_mask']);
      const V = model.config.vocabSize;
      const data = outputs.sparse_vector.data as Float32Array;
      let worst = 0;
      reference(model, batch, false).forEach(({ pooled }, b) => {
        for (let v = 0; v < V; v++) worst = Math.max(worst, relativeError(data[b * V + v], pooled[v]));
      });
      record(`sparse, 2 inputs, ${runtime}`, worst);
      expect(worst).toBeLessThanOrEqual(TOLERANCE);
    },
  );

  it.each(Object.keys(RUNTIMES) as Runtime[])(
    'in %s: the three tensors of a pair encoding (token type 1 on the second text) give the float64 sparse vectors and logits',
    async (runtime) => {
      const { sparseRequired, logits, model } = exported[name];
      const batch = pairBatch(model);
      expect(
        batch.types.some((row) => row.includes(1)),
        'the pairs carry token type 1',
      ).toBe(true);
      const expected = reference(model, batch, true);
      const V = model.config.vocabSize;
      const pooledRun = await runSession(runtime, sparseRequired, (ort) => feeds(ort, model, batch, true));
      expect(pooledRun.inputNames).toEqual(['input_ids', 'attention_mask', 'token_type_ids']);
      const pooled = pooledRun.outputs.sparse_vector.data as Float32Array;
      let worstPooled = 0;
      expected.forEach((row, b) => {
        for (let v = 0; v < V; v++) worstPooled = Math.max(worstPooled, relativeError(pooled[b * V + v], row.pooled[v]));
      });
      const logitsRun = await runSession(runtime, logits, (ort) => feeds(ort, model, batch, true));
      expect(logitsRun.inputNames).toEqual(['input_ids', 'attention_mask', 'token_type_ids']);
      expect(logitsRun.outputs.logits.dims).toEqual([batch.B, batch.T, V]);
      const values = logitsRun.outputs.logits.data as Float32Array;
      let worstLogits = 0;
      expected.forEach((row, b) => {
        // real positions only: a padded position's logits are defined but no consumer reads them
        for (let t = 0; t < batch.ids[b].length; t++)
          for (let v = 0; v < V; v++)
            worstLogits = Math.max(worstLogits, relativeError(values[(b * batch.T + t) * V + v], row.logits[t * V + v]));
      });
      record(`sparse, 3 inputs, ${runtime}`, worstPooled);
      record(`logits, ${runtime}`, worstLogits);
      expect(worstPooled).toBeLessThanOrEqual(TOLERANCE);
      expect(worstLogits).toBeLessThanOrEqual(TOLERANCE);
    },
  );
});

describe('export-onnx: token types change the vectors only where the family has them', () => {
  it.each(Object.keys(CASES) as Case[])('%s', async (name) => {
    const { sparseRequired, model } = exported[name];
    const batch = pairBatch(model);
    const zeros = { ...batch, types: batch.types.map((row) => row.map(() => 0)) };
    const vectors = async (b: Batch) =>
      (await runSession('onnxruntime-node', sparseRequired, (ort) => feeds(ort, model, b, true))).outputs.sparse_vector
        .data as Float32Array;
    const [typed, untyped] = [await vectors(batch), await vectors(zeros)];
    const differs = typed.some((value, i) => value !== untyped[i]);
    expect(differs).toBe(model.config.typeVocabSize > 1);
  });
});

describe('export-onnx --st-folder', () => {
  it.each([
    ['plain', 'onnx/model.onnx'],
    ['router', 'document_0_MLMTransformer/onnx/model.onnx'],
    ['router-root', 'onnx/model.onnx'],
  ] as const)('%s folder: the logits graph lands at %s, equal to the MLM exported alone', async (layout, path) => {
    const dir = join(root, `st-${layout}`);
    const source = join(root, `st-source-${layout}`);
    await writeTinySpladeModel(source, 'bert', { maxPositions: 24 });
    await writeSparseEncoderFolder(dir, source, layout);
    const run = await runCli('export-onnx', '--st-folder', dir, '--k', String(K));
    expect(run.code, run.stderr).toBe(0);
    const placed = new Uint8Array(await readFile(join(dir, path)));
    const alone = await exportWith(source, 'alone.onnx', '--output', 'logits');
    const model = await loadModel(createFolderSource(source));
    const batch = pairBatch(model);
    const outputs = async (bytes: Uint8Array) =>
      (await runSession('onnxruntime-node', bytes, (ort) => feeds(ort, model, batch, true))).outputs.logits.data as Float32Array;
    expect(await outputs(placed)).toEqual(await outputs(alone));
    expect(decodeOnnxModel(placed).graph.output.map((o) => o.name)).toEqual(['logits']);
  });

  it('refuses --output sparse, both --out and --st-folder, a folder without modules.json, and a target linked to the weights', async () => {
    const dir = join(root, 'st-refusals');
    await writeSparseEncoderFolder(dir, exported.bert.dir, 'plain');
    const sparse = await runCli('export-onnx', '--st-folder', dir, '--output', 'sparse');
    expect(sparse.code).not.toBe(0);
    expect(sparse.stderr).toContain('--st-folder writes the logits graph');
    const both = await runCli('export-onnx', '--st-folder', dir, '--out', join(dir, 'x.onnx'));
    expect(both.stderr).toContain('give one of --out and --st-folder');
    const bare = await runCli('export-onnx', '--st-folder', exported.bert.dir);
    expect(bare.code).not.toBe(0);
    expect(bare.stderr).toContain('has no modules.json');
    const weights = join(dir, 'model.safetensors');
    const before = await readFile(weights);
    await mkdir(join(dir, 'onnx'), { recursive: true });
    await symlink(weights, join(dir, 'onnx', 'model.onnx'));
    const linked = await runCli('export-onnx', '--st-folder', dir);
    expect(linked.code).not.toBe(0);
    expect(linked.stderr).toContain('a file of the model being exported');
    expect(await readFile(weights)).toEqual(before);
    expect((await stat(weights)).isFile()).toBe(true);
  });
});

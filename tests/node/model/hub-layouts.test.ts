// The SparseEncoder layouts people bring from the Hub load as their authors meant: for each (OpenSearch doc-v1,
// doc-v2-distill, doc-v3-distill with log1p_relu, doc-v3-gte, plain ST v5 and v6 folders, splade-lab's Router),
// `encode --side query` and `--side document` equal a float64 reference of that layout, and `inspect` says what it read.
import { createRequire } from 'node:module';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/model/config.ts';
import { readSafetensors } from '../../../src/io/formats/safetensors.ts';
import { spladeForward } from '../../../src/model/reference/splade.ts';
import { loadParametersReport, toFloat64Params } from '../../../src/model/weights.ts';
import { runCli, runCliWith } from '../../helpers/cli.ts';
import { HUB_LAYOUTS, writeHubLayout, type HubLayout, type LayoutTruth } from '../../helpers/hub-layouts.ts';
import { TINY_VOCAB } from '../../helpers/tiny-splade-model.ts';

/**
 * Error allowed on each weight, relative to the vector's largest weight (fp32 GPU kernels against float64: a weight
 * near 0 carries the absolute error of its logit, so each is measured against the vector's scale).
 */
const RTOL = 1e-5;

const TEXTS = ['the cat sat and the dog ran', 'sparse vector search query', 'protein', 'the study of the brain and the heart'];

let root: string;
let records: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-hub-layouts-'));
  records = join(root, 'records.jsonl');
  await writeFile(records, TEXTS.map((text, i) => JSON.stringify({ _id: `t${i}`, text })).join('\n') + '\n');
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** The test's own WordPiece of whole words (every word is in the vocabulary), without special tokens. */
const wordIds = (text: string) =>
  text.split(' ').map((word) => {
    const id = TINY_VOCAB.indexOf(word);
    if (id < 0) throw new Error(`"${word}" is not in the test vocabulary`);
    return id;
  });

/** The layout's meaning in float64: documents by the MLM with its pooling, queries by the table (no specials) or alike. */
async function reference(
  dir: string,
  truth: LayoutTruth,
): Promise<{ query: (t: string) => Float64Array; document: (t: string) => Float64Array }> {
  const mlm = join(dir, truth.mlmFolder);
  const config = parseModelConfig(JSON.parse(await readFile(join(mlm, 'config.json'), 'utf8')));
  const tensors = readSafetensors(new Uint8Array(await readFile(join(mlm, 'model.safetensors'))), 'model.safetensors').tensors;
  const params = toFloat64Params(loadParametersReport(config, tensors).params);
  const [cls, sep] = [TINY_VOCAB.indexOf('[CLS]'), TINY_VOCAB.indexOf('[SEP]')];
  const document = (text: string) => {
    const ids = [cls, ...wordIds(text), sep];
    const { pooled } = spladeForward(config, params, { ids: Int32Array.from(ids), mask: ids.map(() => 1), B: 1, T: ids.length });
    return truth.activation === 'log1p_relu' ? pooled.map((w) => Math.log1p(w)) : pooled;
  };
  const table = truth.queryTable;
  const query = table
    ? (text: string) => {
        const vector = new Float64Array(config.vocabSize);
        for (const id of wordIds(text)) vector[id] = table[id];
        return vector;
      }
    : document;
  return { query, document };
}

async function encode(dir: string, side: 'query' | 'document'): Promise<Map<number, number>[]> {
  const out = join(dir, `${side}.jsonl`);
  const run = await runCliWith('encode', { model: dir, in: records, out, format: 'qdrant', side, 'max-length': '32' });
  expect(run.code, run.stderr).toBe(0);
  return (await readFile(out, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => {
      const vector = sparseIn(JSON.parse(line));
      return new Map(vector.indices.map((id, j) => [id, vector.values[j]]));
    });
}

/** The {indices, values} object inside a Qdrant line, wherever its named vector puts it. */
function sparseIn(value: unknown): { indices: number[]; values: number[] } {
  if (typeof value !== 'object' || value === null) throw new Error('no sparse vector in the line');
  if ('indices' in value && 'values' in value) return value as { indices: number[]; values: number[] };
  for (const inner of Object.values(value))
    if (typeof inner === 'object' && inner !== null)
      try {
        return sparseIn(inner);
      } catch {
        // not in this member
      }
  throw new Error('no sparse vector in the line');
}

function expectClose(got: Map<number, number>, want: Float64Array, where: string): void {
  expect(got.size, `${where}: active dimensions`).toBeGreaterThan(0);
  const scale = want.reduce((max, w) => Math.max(max, Math.abs(w)), 0);
  for (let v = 0; v < want.length; v++) {
    const [have, should] = [got.get(v) ?? 0, want[v]];
    expect(Math.abs(have - should) <= RTOL * scale, `${where}, dimension ${v}: encode ${have}, float64 ${should}`).toBe(true);
  }
}

describe.each(HUB_LAYOUTS)('the Hub layout %s', (layout: HubLayout) => {
  let dir: string;
  let truth: LayoutTruth;
  beforeAll(async () => {
    dir = join(root, layout);
    truth = await writeHubLayout(dir, layout);
  });

  it('encodes queries and documents as the layout says (float64 reference of that layout)', async () => {
    const ref = await reference(dir, truth);
    for (const side of ['query', 'document'] as const) {
      const vectors = await encode(dir, side);
      TEXTS.forEach((text, i) => expectClose(vectors[i], ref[side](text), `${layout} --side ${side} "${text}"`));
    }
  });

  it('inspect says what it read', async () => {
    const run = await runCli('inspect', dir);
    expect(run.code, run.stderr).toBe(0);
    const pooling = `SpladePooling(max, ${truth.activation})`;
    expect(run.stdout).toContain(
      truth.queryTable
        ? `encoding: inference-free: queries by an IDF table of ${TINY_VOCAB.length} tokens; documents by the MLM with ${pooling}`
        : `encoding: queries and documents by the MLM with ${pooling}`,
    );
  });
});

describe("--query-model: OpenSearch's tokenizer folder (idf.json beside a tokenizer) as the query side of a document model", () => {
  it('looks queries up in idf.json; documents stay the MLM; a bad idf.json is refused before any encoding', async () => {
    const dir = join(root, 'document-model');
    const truth = await writeHubLayout(dir, 'st-sparse-encoder-v5');
    const tokenizer = join(root, 'opensearch-neural-sparse-tokenizer-v1');
    await writeHubLayout(join(root, 'tokenizer-source'), 'opensearch-doc-v2-distill');
    await mkdir(tokenizer);
    for (const name of ['vocab.txt', 'tokenizer_config.json', 'special_tokens_map.json', 'idf.json'])
      await copyFile(join(root, 'tokenizer-source', name), join(tokenizer, name));
    const idf = JSON.parse(await readFile(join(tokenizer, 'idf.json'), 'utf8')) as Record<string, number>;
    const out = join(root, 'query-model.jsonl');
    const run = await runCliWith('encode', {
      model: dir,
      'query-model': tokenizer,
      in: records,
      out,
      format: 'qdrant',
      side: 'query',
    });
    expect(run.code, run.stderr).toBe(0);
    const vectors = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => sparseIn(JSON.parse(line)));
    TEXTS.forEach((text, i) => {
      const want = new Float64Array(TINY_VOCAB.length);
      for (const id of wordIds(text)) want[id] = idf[TINY_VOCAB[id]];
      expectClose(new Map(vectors[i].indices.map((id, j) => [id, vectors[i].values[j]])), want, `--query-model "${text}"`);
    });
    expect(truth.queryTable).toBeNull();
    await writeFile(join(tokenizer, 'idf.json'), JSON.stringify({ ...idf, cat: -2 }));
    const bad = await runCliWith('encode', { model: dir, 'query-model': tokenizer, in: records, out, side: 'query' });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(
      /opensearch-neural-sparse-tokenizer-v1\/idf\.json: the weight of "cat" is -2; every weight must be a finite number ≥ 0/,
    );
  });
});

describe("export-onnx of a log1p_relu model (OpenSearch's doc-v3) pools as its SpladePooling says", () => {
  it('the pooled graph in onnxruntime-node equals the float64 log(1 + log(1 + relu)) max, not one log', async () => {
    const dir = join(root, 'onnx-doc-v3');
    const truth = await writeHubLayout(dir, 'opensearch-doc-v3-distill');
    const out = join(root, 'doc-v3.onnx');
    const run = await runCli('export-onnx', '--model', dir, '--out', out);
    expect(run.code, run.stderr).toBe(0);
    const ort = createRequire(import.meta.url)('onnxruntime-node') as typeof Ort;
    const session = await ort.InferenceSession.create(new Uint8Array(await readFile(out)));
    const ref = await reference(dir, truth);
    const [cls, sep] = [TINY_VOCAB.indexOf('[CLS]'), TINY_VOCAB.indexOf('[SEP]')];
    for (const text of TEXTS) {
      const ids = [cls, ...wordIds(text), sep];
      const tensor = (values: number[]) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [1, ids.length]);
      const { sparse_vector: vector } = await session.run({ input_ids: tensor(ids), attention_mask: tensor(ids.map(() => 1)) });
      const values = vector.data as Float32Array;
      expectClose(
        new Map(Array.from(values, (w, id) => [id, w] as [number, number]).filter(([, w]) => w !== 0)),
        ref.document(text),
        `onnx "${text}"`,
      );
    }
  });
});

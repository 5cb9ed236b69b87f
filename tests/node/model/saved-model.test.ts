// Acceptance of a model saved by `splade-lab train`: a complete sentence-transformers SparseEncoder folder whose
// README.md states k, and whose Hugging Face tensors, read here by a parser of the test's own, give in float64 the
// same SPLADE vectors as `splade-lab encode` of that folder.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/model/config.ts';
import { type ModelConfig } from '../../../src/contract/model/model-config.ts';
import { P, parameterLayout, type ModelParams } from '../../../src/model/layout.ts';
import { spladeForward } from '../../../src/model/reference/splade.ts';
import { runCliWith } from '../../helpers/cli.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { TINY_BATCH_SHAPE } from '../../helpers/tiny-training-flags.ts';
import { writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

const TRIPLETS = generatedTriplets();

const K = 4;

/** Relative tolerance on each weight (fp32 GPU kernels against float64), and what counts as "zero" for a weight. */
const RTOL = 1e-4;

const ZERO = 1e-5;

const TEXTS = [
  'the cat sat and the dog ran',
  'sparse vector search',
  'protein',
  'the results of a study of the brain and the heart',
];

let root: string;

let saved: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-saved-model-'));
  const backbone = join(root, 'tiny');
  await writeTinySpladeModel(backbone);
  const out = join(root, 'run');
  const small = [...TINY_BATCH_SHAPE, '--lr', '1e-3'];
  const trained = await runCliWith(
    'train',
    { model: backbone, triplets: TRIPLETS, out },
    ...small,
    '--steps',
    '2',
    '--k',
    String(K),
  );
  expect(trained.stderr).toBe('');
  expect(trained.code).toBe(0);
  saved = join(out, 'model');
});
afterAll(() => rm(root, { recursive: true, force: true }));

const readJson = async (path: string) => JSON.parse(await readFile(join(saved, path), 'utf8'));

/** Every file of the folder, recursively, relative to it. */
async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) out.push(...(await listFiles(join(dir, entry.name), `${prefix}${entry.name}/`)));
    else out.push(`${prefix}${entry.name}`);
  }
  return out.sort();
}

/** A safetensors file read by the test itself: u64 LE header size, JSON header, raw little-endian F32 data. */
function readSafetensors(bytes: Uint8Array): {
  metadata: Record<string, string>;
  tensors: Map<string, { shape: number[]; data: Float64Array }>;
} {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerSize = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerSize))) as Record<string, unknown>;
  const base = 8 + headerSize;
  const tensors = new Map<string, { shape: number[]; data: Float64Array }>();
  let metadata: Record<string, string> = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = entry as Record<string, string>;
      continue;
    }
    const {
      dtype,
      shape,
      data_offsets: [begin, end],
    } = entry as { dtype: string; shape: number[]; data_offsets: [number, number] };
    expect(dtype, name).toBe('F32');
    const count = shape.reduce((a, b) => a * b, 1);
    expect(end - begin, `${name}: bytes of ${shape}`).toBe(4 * count);
    const data = new Float64Array(count);
    for (let i = 0; i < count; i++) data[i] = view.getFloat32(base + begin + 4 * i, true);
    tensors.set(name, { shape, data });
  }
  return { metadata, tensors };
}

/** BertForMaskedLM's names -> the float64 reference's parameters (q, k, v stacked into one (3d, d) matrix). */
function bertParams(
  config: ModelConfig,
  hf: Map<string, { shape: number[]; data: Float64Array }>,
): { params: ModelParams; used: Set<string> } {
  const used = new Set<string>();
  const take = (name: string) => {
    const tensor = hf.get(name);
    if (!tensor) throw new Error(`model.safetensors has no ${name}`);
    used.add(name);
    return tensor.data;
  };
  const stack = (...names: string[]) => {
    const parts = names.map(take);
    const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) out.set(p, (at += p.length) - p.length);
    return out;
  };
  const params: ModelParams = {
    [P.wordEmbeddings]: take('bert.embeddings.word_embeddings.weight'),
    [P.positionEmbeddings]: take('bert.embeddings.position_embeddings.weight'),
    [P.tokenTypeEmbeddings]: take('bert.embeddings.token_type_embeddings.weight'),
    [P.embeddingNorm('weight')]: take('bert.embeddings.LayerNorm.weight'),
    [P.embeddingNorm('bias')]: take('bert.embeddings.LayerNorm.bias'),
    [P.headDense('weight')]: take('cls.predictions.transform.dense.weight'),
    [P.headDense('bias')]: take('cls.predictions.transform.dense.bias'),
    [P.headNorm('weight')]: take('cls.predictions.transform.LayerNorm.weight'),
    [P.headNorm('bias')]: take('cls.predictions.transform.LayerNorm.bias'),
    [P.decoderBias]: take('cls.predictions.bias'),
  };
  for (let i = 0; i < config.layers; i++) {
    const l = `bert.encoder.layer.${i}.`;
    for (const part of ['weight', 'bias'] as const) {
      params[P.qkv(i, part)] = stack(
        `${l}attention.self.query.${part}`,
        `${l}attention.self.key.${part}`,
        `${l}attention.self.value.${part}`,
      );
      params[P.attnOut(i, part)] = take(`${l}attention.output.dense.${part}`);
      params[P.attnOutNorm(i, part)] = take(`${l}attention.output.LayerNorm.${part}`);
      params[P.mlpIn(i, part)] = take(`${l}intermediate.dense.${part}`);
      params[P.mlpOut(i, part)] = take(`${l}output.dense.${part}`);
      params[P.mlpOutNorm(i, part)] = take(`${l}output.LayerNorm.${part}`);
    }
  }
  return { params, used };
}

/** WordPiece of whole lower-case words of the saved vocab.txt: [CLS] word ids [SEP] (every word is in the vocabulary). */
function tokenizeWords(vocab: string[], text: string): number[] {
  const id = (token: string) => {
    const i = vocab.indexOf(token);
    if (i < 0) throw new Error(`"${token}" is not in the saved vocab.txt`);
    return i;
  };
  return [id('[CLS]'), ...text.split(' ').map(id), id('[SEP]')];
}

describe('a model saved by splade-lab train', () => {
  it('is a complete SparseEncoder folder: modules, configs, fp32 weights with the tied decoder left out, tokenizer, and a model card stating k', async () => {
    expect(await listFiles(saved)).toEqual(
      [
        '1_SpladePooling/config.json',
        'README.md',
        'config.json',
        'config_sentence_transformers.json',
        'model.safetensors',
        'modules.json',
        'sentence_bert_config.json',
        'vocab.txt',
      ].sort(),
    );
    expect(await readJson('modules.json')).toEqual([
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.sparse_encoder.models.MLMTransformer' },
      { idx: 1, name: '1', path: '1_SpladePooling', type: 'sentence_transformers.sparse_encoder.models.SpladePooling' },
    ]);
    expect(await readJson('sentence_bert_config.json')).toEqual({ max_seq_length: 16, do_lower_case: false });
    const st = await readJson('config_sentence_transformers.json');
    expect(st).toMatchObject({
      model_type: 'SparseEncoder',
      similarity_fn_name: 'dot',
      prompts: { query: '', document: '' },
      default_prompt_name: null,
    });
    const config = await readJson('config.json');
    expect(await readJson('1_SpladePooling/config.json')).toEqual({
      pooling_strategy: 'max',
      activation_function: 'relu',
      word_embedding_dimension: config.vocab_size,
    });
    expect(config).toMatchObject({
      architectures: ['BertForMaskedLM'],
      model_type: 'bert',
      tie_word_embeddings: true,
      torch_dtype: 'float32',
    });
    const { metadata, tensors } = readSafetensors(new Uint8Array(await readFile(join(saved, 'model.safetensors'))));
    expect(metadata).toEqual({ format: 'pt' });
    expect(tensors.has('cls.predictions.decoder.weight')).toBe(false); // tied: transformers re-ties it to the word embeddings
    expect(tensors.has('cls.predictions.decoder.bias')).toBe(false); // shared with cls.predictions.bias, saved once

    const card = await readFile(join(saved, 'README.md'), 'utf8');
    const [, yaml, body] = card.split(/^---$/m);
    expect(yaml).toMatch(/^library_name: sentence-transformers$/m);
    expect(yaml).toMatch(/^pipeline_tag: feature-extraction$/m);
    expect(yaml).toMatch(/^- sparse-encoder$/m);
    expect(yaml).not.toMatch(/^base_model:/m); // a local folder, not a Hub id
    expect(yaml).not.toMatch(/^license:/m);
    expect(body).toContain(`**k = ${K}**`);
    expect(body).toContain('the shared matrix was divided');
    expect(body).toContain('triplets.tsv');
    expect(body).toMatch(/100 triplets, CRC-32 of the file `[0-9a-f]{8}`/);
    expect(body).toContain('| steps trained | 2 of 2');
    expect(body).toContain('lambda_q = 0.05, lambda_d = 0.003');
    expect(body).toContain('encode_query');
  });

  it(`an independent float64 reader of model.safetensors gives the vectors of splade-lab encode --format qdrant (weights within rel ${RTOL}, others below ${ZERO})`, async () => {
    const configJson = await readJson('config.json');
    const config = parseModelConfig(configJson, { source: 'saved config.json' });
    const { tensors } = readSafetensors(new Uint8Array(await readFile(join(saved, 'model.safetensors'))));
    const { params, used } = bertParams(config, tensors);
    expect(Object.keys(params).sort()).toEqual(
      parameterLayout(config)
        .map((s) => s.name)
        .sort(),
    );
    expect([...tensors.keys()].filter((name) => !used.has(name))).toEqual([]);
    const vocab = (await readFile(join(saved, 'vocab.txt'), 'utf8')).split('\n');

    const records = join(root, 'records.jsonl');
    const vectorsPath = join(root, 'vectors.jsonl');
    await writeFile(records, TEXTS.map((text, i) => JSON.stringify({ _id: `t${i}`, text })).join('\n') + '\n');
    const encoded = await runCliWith('encode', {
      model: saved,
      in: records,
      out: vectorsPath,
      format: 'qdrant',
      'max-length': '16',
    });
    expect(encoded.code).toBe(0);
    const lines = (await readFile(vectorsPath, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { payload: { doc_id: string }; vector: { splade: { indices: number[]; values: number[] } } });
    expect(lines.map((l) => l.payload.doc_id)).toEqual(TEXTS.map((_, i) => `t${i}`));

    TEXTS.forEach((text, i) => {
      const ids = tokenizeWords(vocab, text);
      const { pooled } = spladeForward(config, params, {
        ids: Int32Array.from(ids),
        mask: ids.map(() => 1),
        B: 1,
        T: ids.length,
      });
      const { indices, values } = lines[i].vector.splade;
      const got = new Map(indices.map((index, j) => [index, values[j]]));
      expect(got.size, `${text}: active dimensions`).toBeGreaterThan(0);
      for (let v = 0; v < config.vocabSize; v++) {
        const want = pooled[v];
        const have = got.get(v) ?? 0;
        const where = `"${text}", dimension ${v} (${vocab[v]}): encode ${have}, float64 ${want}`;
        if (want > ZERO && have > ZERO) expect(Math.abs(have - want) <= RTOL * want, where).toBe(true);
        else expect(Math.max(want, have) <= ZERO, where).toBe(true);
      }
    });
  });
});

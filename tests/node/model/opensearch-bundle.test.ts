// `splade-lab export-opensearch`: ml-commons' zips read back by readers that are not the writer (src/io/formats/zip.ts, which
// checks every CRC-32, and `unzip -t` where the machine has it): entries at the root as ModelHelper.verifyModelZipFile
// and DLModel.loadModel need them, the config's size and SHA-256 (node:crypto) equal to the zip's; the document zip's
// ONNX runs in onnxruntime-node under the names ml-commons feeds and equals the sparse export and the float64 reference;
// the query zip's idf.json, looked up as SparseTokenizerModel does, gives the model's static query weights.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mlCommonsIdf } from '../../../src/app/model/opensearch-bundle.ts';
import { maxSequenceTokens } from '../../../src/contract/model/max-tokens.ts';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { decodedTokenTexts } from '../../../src/io/tokenizer/token-texts.ts';
import { createTokenizerJsonTokenizer, type Json } from '../../../src/io/tokenizer/tokenizer-json.ts';
import { readZipDirectory, zipEntryBytes } from '../../../src/io/formats/zip.ts';
import { decoderWeightName } from '../../../src/model/layout.ts';
import { loadModel, type LoadedModel } from '../../../src/model/load-model.ts';
import { spladeForward } from '../../../src/model/reference/splade.ts';
import { toFloat64Params } from '../../../src/model/weights.ts';
import { Random } from '../../../src/util/random.ts';
import { runCli } from '../../helpers/cli.ts';
import { writeSparseEncoderFolder } from '../../helpers/tiny-sparse-encoder-folder.ts';
import { TINY_VOCAB, TINY_WORDS, writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

const ort = createRequire(import.meta.url)('onnxruntime-node') as typeof Ort;
const K = 2;
const TOLERANCE = 1e-5;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'opensearch-bundle-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

function texts(count: number, seed: number): string[] {
  const random = new Random(seed);
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + random.int(8) }, () => TINY_WORDS[random.int(TINY_WORDS.length)]).join(' '),
  );
}

interface Bundle {
  zipBytes: Uint8Array;
  entries: Map<string, Uint8Array>;
  config: Record<string, unknown>;
}

/** Runs export-opensearch and reads the zip back with src/io/formats/zip.ts (and `unzip -t` where installed). */
async function exportBundle(...flags: string[]): Promise<Bundle> {
  const out = join(root, `bundle-${flags.join('-').replace(/[^\w]+/g, '_')}.zip`);
  const run = await runCli('export-opensearch', '--out', out, ...flags);
  expect(run.code, run.stderr).toBe(0);
  const zipBytes = new Uint8Array(await readFile(out));
  const directory = readZipDirectory(zipBytes, out);
  const entries = new Map([...directory].map(([name, entry]) => [name, zipEntryBytes(zipBytes, entry, out)] as const));
  const unzipPresent = (() => {
    try {
      execFileSync('unzip', ['-v'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  if (unzipPresent) expect(execFileSync('unzip', ['-t', out], { encoding: 'utf8' })).toContain('No errors detected');
  const config = JSON.parse(await readFile(out.replace(/\.zip$/, '.json'), 'utf8')) as Record<string, unknown>;
  return { zipBytes, entries, config };
}

function expectSizeAndHash({ zipBytes, config }: Bundle): void {
  expect(config.model_content_size_in_bytes).toBe(zipBytes.length);
  expect(config.model_content_hash_value).toBe(createHash('sha256').update(zipBytes).digest('hex'));
}

describe('export-opensearch --side document (SPARSE_ENCODING, ONNX)', () => {
  let dir: string;
  let model: LoadedModel;
  let bundle: Bundle;
  beforeAll(async () => {
    dir = join(root, 'bert');
    await writeTinySpladeModel(dir, 'bert', { maxPositions: 24 });
    model = await loadModel(createFolderSource(dir));
    bundle = await exportBundle('--model', dir, '--k', String(K), '--name', 'tiny-splade');
  });

  it('zips model.onnx and tokenizer.json at the root, with the register config ml-commons reads', () => {
    expect([...bundle.entries.keys()]).toEqual(['model.onnx', 'tokenizer.json']);
    expectSizeAndHash(bundle);
    expect(bundle.config).toMatchObject({
      name: 'tiny-splade',
      version: '1.0.0',
      model_format: 'ONNX',
      function_name: 'SPARSE_ENCODING',
      model_config: { model_type: 'bert' },
    });
    // DJL truncates by tokenizer.json: a vocab.txt model's file gets the model's length
    const tokenizer = JSON.parse(new TextDecoder().decode(bundle.entries.get('tokenizer.json'))) as Json;
    expect(tokenizer.truncation).toEqual({
      direction: 'Right',
      max_length: maxSequenceTokens(model.config),
      strategy: 'LongestFirst',
      stride: 0,
    });
  });

  it('runs under the names ml-commons feeds, one text at a time, equal to export-onnx and to the float64 reference', async () => {
    const session = await ort.InferenceSession.create(bundle.entries.get('model.onnx')!);
    const plainFile = join(dir, 'plain.onnx');
    const plainRun = await runCli('export-onnx', '--model', dir, '--k', String(K), '--out', plainFile);
    expect(plainRun.code, plainRun.stderr).toBe(0);
    const plain = await ort.InferenceSession.create(await readFile(plainFile));
    // what DJL's OrtSymbolBlock compares the translator's input1.* arrays against
    expect([session.inputNames, session.outputNames]).toEqual([['input1.input_ids', 'input1.attention_mask'], ['output']]);
    const tokenizer = createTokenizerJsonTokenizer(
      JSON.parse(new TextDecoder().decode(bundle.entries.get('tokenizer.json'))) as Json,
    );
    const params = toFloat64Params(model.params);
    const divided = params[decoderWeightName(model.config)];
    for (let i = 0; i < divided.length; i++) divided[i] /= K;
    let worst = 0;
    try {
      for (const text of texts(20, 7)) {
        const ids = tokenizer.encode(text, { maxLength: maxSequenceTokens(model.config) }).ids;
        const tensor = (values: number[]) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [1, values.length]);
        const ones = ids.map(() => 1);
        const fromBundle = (await session.run({ 'input1.input_ids': tensor(ids), 'input1.attention_mask': tensor(ones) })).output;
        const fromPlain = (await plain.run({ input_ids: tensor(ids), attention_mask: tensor(ones) })).sparse_vector;
        expect(fromBundle.dims).toEqual([1, model.config.vocabSize]);
        expect(fromBundle.data).toEqual(fromPlain.data);
        const { pooled } = spladeForward(model.config, params, { ids: Int32Array.from(ids), mask: ones, B: 1, T: ids.length });
        (fromBundle.data as Float32Array).forEach((value, v) => (worst = Math.max(worst, Math.abs(value - pooled[v]))));
      }
    } finally {
      await session.release();
      await plain.release();
    }
    console.log(`document bundle against float64: max abs error ${worst}`);
    expect(worst).toBeLessThanOrEqual(TOLERANCE);
  });
});

describe('export-opensearch --side query (SPARSE_TOKENIZE)', () => {
  it("zips tokenizer.json and idf.json whose lookup, as SparseTokenizerModel does it, gives the model's query weights", async () => {
    const source = join(root, 'router-source');
    await writeTinySpladeModel(source, 'bert', { maxPositions: 24 });
    const random = new Random(3);
    // some tokens weigh 0: idf.json must still list them (ml-commons gives a missing token 1.0)
    const weights = Float32Array.from(TINY_VOCAB, (_, id) => (id < 5 ? 0 : random.int(3) === 0 ? 0 : 0.5 + random.next() * 4));
    const dir = join(root, 'router');
    await writeSparseEncoderFolder(dir, source, 'router', weights);
    const bundle = await exportBundle('--model', dir, '--side', 'query');
    expect([...bundle.entries.keys()]).toEqual(['tokenizer.json', 'idf.json']);
    expectSizeAndHash(bundle);
    expect(bundle.config).toMatchObject({ function_name: 'SPARSE_TOKENIZE', model_format: 'TORCH_SCRIPT', version: '1.0.0' });
    const decode = (name: string) => JSON.parse(new TextDecoder().decode(bundle.entries.get(name))) as Json;
    const idf = decode('idf.json') as Record<string, number>;
    // every token but the five specials, zeros included, under its text
    expect(Object.keys(idf)).toEqual(TINY_VOCAB.slice(5));
    const tokenizerJson = decode('tokenizer.json');
    const tokenizer = createTokenizerJsonTokenizer(tokenizerJson);
    const textOf = decodedTokenTexts(tokenizerJson);
    for (const query of texts(20, 11)) {
      // SparseTokenizerModel.predict: unique ids, decoded with special tokens skipped, weight idf.getOrDefault(text, 1.0)
      const mlCommons = new Map<string, number>();
      for (const id of new Set(tokenizer.encode(query).ids))
        if (textOf[id] !== '') mlCommons.set(textOf[id], idf[textOf[id]] ?? 1);
      const expected = new Map<string, number>();
      for (const id of new Set(tokenizer.encode(query).ids)) if (id >= 5) expected.set(TINY_VOCAB[id], weights[id]);
      expect(mlCommons).toEqual(expected);
    }
  });

  it('refuses a model without a static query table, naming what --side query takes', async () => {
    const dir = join(root, 'plain-model');
    await writeTinySpladeModel(dir, 'bert', { maxPositions: 24 });
    const run = await runCli('export-opensearch', '--model', dir, '--side', 'query', '--out', join(root, 'refused.zip'));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('has no static query table');
  });
});

describe("idf.json keys: the text ml-commons decodes each token to (ModernBERT's byte-level BPE)", () => {
  it('keeps pieces as their decoded text, leaves special tokens out and merges tokens that decode alike', async () => {
    const tokenizerJson = JSON.parse(await readFile('tests/fixtures/tokenizers/modernbert/tokenizer.json', 'utf8')) as Json;
    const texts = decodedTokenTexts(tokenizerJson);
    const tokenizer = createTokenizerJsonTokenizer(tokenizerJson);
    expect(texts[tokenizer.tokenToId('Ġthe')!]).toBe(' the');
    expect(texts[tokenizer.specialIds.cls]).toBe('');
    const weights = Float32Array.from(texts, (_, id) => id % 7);
    const { idf, merged } = mlCommonsIdf(weights, texts);
    expect(idf[' the']).toBe(weights[tokenizer.tokenToId('Ġthe')!]);
    expect(Object.hasOwn(idf, '')).toBe(false);
    // lone bytes of multi-byte characters all decode to U+FFFD: one entry, the largest weight
    expect(merged).toBeGreaterThan(0);
    expect(idf['\ufffd']).toBe(6);
  });
});

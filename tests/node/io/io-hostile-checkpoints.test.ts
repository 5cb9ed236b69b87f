// Hostile model files (issue 11): tiny files that used to make gigabytes resident or take minutes are refused at once,
// with short messages; the byte budget from config.json caps what the weights may cost.
import { afterAll, describe, expect, it } from 'vitest';
import { PROMPTLY_MS } from '../../helpers/promptly.ts';
import { CheckpointBudgetError, estimateCheckpointBytes, loadCheckpoint } from '../../../src/io/formats/model-folder.ts';
import { createMemorySource, FileTooLargeError, type FileSource } from '../../../src/io/file-source.ts';
import { createFileListSource } from '../../../src/io/file-source-browser.ts';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { createUrlFolderSource } from '../../../src/io/hub/url-folder-source.ts';
import { CheckpointFormatError } from '../../../src/io/format-error.ts';
import { readTorchCheckpoint } from '../../../src/io/formats/torch-pickle.ts';
import { parseModelConfig } from '../../../src/model/config.ts';
import { checkpointByteBudget, loadModel } from '../../../src/model/load-model.ts';
import {
  TINY_BERT_CONFIG,
  encodeSafetensors,
  encodeStateDictPickle,
  encodeStoredZip,
  encodeTorchLegacy,
  encodeTorchZip,
  tinyBertSafetensorsTensors,
  tinyBertTorchState,
  makeTempDir,
  removeTempDirs,
  writeFolder,
  type TorchFixtureStorage,
  type TorchFixtureTensor,
} from '../../helpers/checkpoint-fixtures.ts';

const FILE = 'pytorch_model.bin';

const one = (n: number): TorchFixtureStorage[] => [{ key: '0', dtype: 'F32', values: new Float32Array(n).fill(1) }];

/** The error `run` throws (or a failure naming what came back instead). */
function errorOf(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error, got a result');
}

describe.each([
  ['zip', encodeTorchZip],
  ['legacy', encodeTorchLegacy],
] as const)('hostile views in a %s pytorch_model.bin', (_, encode) => {
  it('refuses a stride-0 view of a one-float storage (once 1 GiB resident from 532 bytes)', () => {
    const bytes = encode(one(1), [{ name: 'broadcast', storage: '0', shape: [2 ** 28], stride: [0] }]);
    expect(bytes.length).toBeLessThan(2048);
    const error = errorOf(() => readTorchCheckpoint(bytes, FILE));
    expect(error).toBeInstanceOf(CheckpointFormatError);
    expect(error.message).toMatch(
      /tensor "broadcast": .*stride 0 in dimension 0: one stored value stands for 268435456; save the tensor with \.contiguous\(\)/,
    );
  });

  it('refuses a view that overlaps itself (once 8 GiB asked of a small storage)', () => {
    const bytes = encode(one(8191), [{ name: 'overlap', storage: '0', shape: [4096, 4096], stride: [1, 1] }]);
    expect(() => readTorchCheckpoint(bytes, FILE)).toThrow(
      /tensor "overlap": view \(offset 0, size \[4096, 4096\], stride \[1, 1\]\) overlaps itself/,
    );
  });

  it('shares one decoded storage between its contiguous views and copies only a transposed one', () => {
    const storages = one(16);
    const views: TorchFixtureTensor[] = [
      { name: 'head', storage: '0', shape: [4] },
      { name: 'tail', storage: '0', offset: 4, shape: [3, 4] },
      { name: 'transposed', storage: '0', shape: [4, 4], stride: [1, 4] },
    ];
    const { tensors } = readTorchCheckpoint(encode(storages, views), FILE);
    expect(tensors.get('tail')!.data.buffer).toBe(tensors.get('head')!.data.buffer);
    expect(tensors.get('transposed')!.data.buffer).not.toBe(tensors.get('head')!.data.buffer);
  });
});

afterAll(removeTempDirs);

describe('hostile zip archives and pickles', () => {
  it('refuses central-directory entries that alias one stored entry (each storage must own its bytes)', () => {
    const values = new Float32Array(16 * 1024).fill(0.5);
    const storages = Array.from({ length: 20 }, (_, i): TorchFixtureStorage => ({ key: String(i), dtype: 'F32', values }));
    const tensors = storages.map((s): TorchFixtureTensor => ({ name: `t${s.key}`, storage: s.key, shape: [values.length] }));
    const zip = encodeStoredZip(
      [
        ['archive/data.pkl', encodeStateDictPickle(storages, tensors, false)],
        ['archive/data/0', new Uint8Array(values.buffer)],
      ],
      storages.slice(1).map((s): [string, string] => [`archive/data/${s.key}`, 'archive/data/0']),
    );
    expect(() => readTorchCheckpoint(zip, FILE)).toThrow(
      /zip entries "archive\/data\/\d+" and "archive\/data\/\d+" overlap .*each entry must own its bytes/,
    );
  });

  it('refuses a 512 KiB pickle integer at once, without quoting it', () => {
    const n = 512 * 1024;
    const pickle = new Uint8Array(8 + n);
    pickle.set([0x80, 2, 0x8b, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, 0]); // PROTO 2, LONG4 n
    pickle.fill(0x7f, 7, 7 + n);
    pickle[7 + n] = 0x2e; // STOP
    for (const bytes of [encodeStoredZip([['archive/data.pkl', pickle]]), pickle]) {
      const started = performance.now();
      const error = errorOf(() => readTorchCheckpoint(bytes, FILE));
      expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
      expect(error.message).toMatch(/integer of 524288 bytes is wider than the (8|10) bytes/);
      expect(error.message.length).toBeLessThan(200);
    }
  });

  it('keeps a megabyte-long global name out of the error message', () => {
    const name = 'x'.repeat(1 << 20);
    const pickle = new Uint8Array([0x80, 2, 0x63, ...new TextEncoder().encode(`os\n${name}\n`), 0x2e]);
    const error = errorOf(() => readTorchCheckpoint(encodeStoredZip([['archive/data.pkl', pickle]]), FILE));
    expect(error.message).toMatch(/refuses pickle global "os\.xxx/);
    expect(error.message.length).toBeLessThan(500);
  });
});

describe('the byte budget from config.json', () => {
  const encoder = new TextEncoder();
  const config = parseModelConfig(TINY_BERT_CONFIG);
  const budget = checkpointByteBudget(config);

  it('is the fp32 parameters plus one vocabulary matrix, x 1.25, + 16 MiB', () => {
    const bert = parseModelConfig({ model_type: 'bert' }); // bert-base-uncased sizes
    expect(checkpointByteBudget(bert)).toBe(Math.ceil(4 * (109_514_298 + 30522 * 768) * 1.25) + 16 * 2 ** 20);
  });

  it('refuses, before decoding, a checkpoint whose tensors would need more than the budget', async () => {
    const tensors = tinyBertSafetensorsTensors();
    tensors.set('extra.weight', { shape: [5 * 2 ** 20], data: new Float32Array(5 * 2 ** 20) }); // 20 MiB the model never uses
    const files = new Map([
      ['config.json', encoder.encode(JSON.stringify(TINY_BERT_CONFIG))],
      ['model.safetensors', encodeSafetensors(tensors, 'F16')],
    ]);
    const load = loadCheckpoint(createMemorySource(files, 'mem'), { byteBudget: budget });
    await expect(load).rejects.toBeInstanceOf(CheckpointBudgetError);
    await expect(loadCheckpoint(createMemorySource(files, 'mem'), { byteBudget: budget })).rejects.toThrow(
      /^mem: decoding the weights needs 20\.0 MiB, over the budget of 16\.0 MiB that config\.json allows; the weights do not match the config/,
    );
    await expect(loadModel(createMemorySource(files, 'mem'))).rejects.toBeInstanceOf(CheckpointBudgetError);
  });

  it('refuses a weight file larger than the budget from its size, in the loader and in the estimate', async () => {
    const { storages, tensors } = tinyBertTorchState(2);
    const big: TorchFixtureStorage = { key: '9', dtype: 'F32', values: new Float32Array(5 * 2 ** 20) };
    const files = new Map([
      ['config.json', encoder.encode(JSON.stringify(TINY_BERT_CONFIG))],
      ['pytorch_model.bin', encodeTorchZip([...storages, big], [...tensors, { name: 'extra', storage: '9', shape: [1] }])],
    ]);
    const source = createMemorySource(files, 'mem');
    const error = await loadModel(source).catch((e) => e);
    expect(error).toBeInstanceOf(FileTooLargeError);
    expect(error.message).toMatch(
      /^mem\/pytorch_model\.bin is 20\.0 MiB, over the 16\.0 MiB allowed here; check that the file belongs to this model/,
    );
    await expect(estimateCheckpointBytes(source, { byteBudget: budget })).rejects.toBeInstanceOf(FileTooLargeError);
    expect((await estimateCheckpointBytes(source)).tensorCount).toBe(9);
  });
});

describe('every file source refuses a file over maxFileBytes', () => {
  const bytes = new Uint8Array(4096).fill(7);
  const sources: Record<string, () => Promise<FileSource>> = {
    memory: async () => createMemorySource(new Map([['w.bin', bytes]]), 'mem'),
    folder: async () => {
      const dir = await makeTempDir();
      await writeFolder(dir, { 'w.bin': bytes });
      return createFolderSource(dir);
    },
    'picked files': async () => createFileListSource([new File([bytes], 'w.bin')], 'picked'),
    'URL folder': async () =>
      createUrlFolderSource(
        'https://example.test/m/',
        'url',
        (async () => new Response(bytes, { headers: { 'Content-Length': '4096' } })) as typeof fetch,
      ),
  };
  it.each(Object.keys(sources))('%s', async (kind) => {
    const source = await sources[kind]();
    await expect(source.readFile('w.bin', { maxFileBytes: 4095 })).rejects.toThrow(
      /w\.bin.* is 4096 bytes, over the 4095 bytes allowed here/,
    );
    expect(await source.readFile('w.bin', { maxFileBytes: 4096 })).toHaveLength(4096);
  });
});

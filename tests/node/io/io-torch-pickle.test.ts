// pytorch_model.bin: zip and legacy formats decode every layout exactly, tied storages come back as one tensor,
// views share their storage, and any global outside the state-dict allow-list is refused by name.
import { describe, expect, it } from 'vitest';
import { CheckpointFormatError } from '../../../src/io/format-error.ts';
import { indexTorchCheckpoint, readTorchCheckpoint, torchDecodedBytes } from '../../../src/io/formats/torch-pickle.ts';
import { readZipDirectory } from '../../../src/io/formats/zip.ts';
import type { TensorMap } from '../../../src/io/host-tensor.ts';
import { encodeStoredZip, encodeTorchLegacy, encodeTorchZip, tinyBertTorchState } from '../../helpers/checkpoint-fixtures.ts';

const FILE = 'pytorch_model.bin';

function expectSameTensors(actual: TensorMap, expected: TensorMap): void {
  expect([...actual.keys()]).toEqual([...expected.keys()]);
  for (const [name, tensor] of expected) {
    expect(actual.get(name)!.shape, name).toEqual(tensor.shape);
    expect(Array.from(actual.get(name)!.data), name).toEqual(Array.from(tensor.data));
  }
}

function pickleCalling(module: string, name: string): Uint8Array {
  const global = new TextEncoder().encode(`${module}\n${name}\n`);
  // PROTO 2, GLOBAL module name, SHORT_BINUNICODE "x", TUPLE1, REDUCE, STOP
  return new Uint8Array([0x80, 2, 0x63, ...global, 0x8c, 1, 0x78, 0x85, 0x52, 0x2e]);
}

describe.each([
  ['zip', encodeTorchZip],
  ['legacy', encodeTorchLegacy],
] as const)('%s pytorch_model.bin', (format, encode) => {
  const { storages, tensors, expected } = tinyBertTorchState(5);
  const bytes = encode(storages, tensors);

  it('decodes fp32/fp16/bf16 storages, storage offsets and a transposed view exactly', () => {
    const checkpoint = readTorchCheckpoint(bytes, FILE);
    expect(checkpoint.format).toBe(format);
    expectSameTensors(checkpoint.tensors, expected);
  });

  it('returns names sharing one storage view as one tensor and reports them as aliases', () => {
    const checkpoint = readTorchCheckpoint(bytes, FILE);
    expect(checkpoint.tensors.get('cls.predictions.decoder.weight')).toBe(
      checkpoint.tensors.get('bert.embeddings.word_embeddings.weight'),
    );
    expect(checkpoint.tensors.get('cls.predictions.decoder.bias')).toBe(checkpoint.tensors.get('cls.predictions.bias'));
    expect(Object.fromEntries(checkpoint.aliases)).toEqual({
      'cls.predictions.decoder.weight': 'bert.embeddings.word_embeddings.weight',
      'cls.predictions.decoder.bias': 'cls.predictions.bias',
    });
  });

  it('indexes without decoding and counts tied tensors once in the fp32 estimate', () => {
    const index = indexTorchCheckpoint(bytes, FILE);
    expect(index.tensors.size).toBe(8);
    const unique = [...expected].filter(([name]) => !name.startsWith('cls.predictions.decoder'));
    expect(torchDecodedBytes(index)).toBe(4 * unique.reduce((n, [, t]) => n + t.data.length, 0));
  });

  it('reports different views of one storage as shared storage, both views sharing its decoded memory', () => {
    const st = [{ key: '0', dtype: 'F32' as const, values: new Float32Array([1, 2, 3, 4, 5, 6]) }];
    const views = [
      { name: 'first', storage: '0', shape: [2] },
      { name: 'rest', storage: '0', offset: 2, shape: [2, 2] },
    ];
    const checkpoint = readTorchCheckpoint(encode(st, views), FILE);
    const [first, rest] = [checkpoint.tensors.get('first')!.data, checkpoint.tensors.get('rest')!.data];
    expect(Array.from(rest)).toEqual([3, 4, 5, 6]);
    expect(rest.buffer).toBe(first.buffer); // one decoded storage, two views of it (as PyTorch's loader gives)
    expect([first.byteOffset, rest.byteOffset]).toEqual([0, 8]);
    expect(checkpoint.sharedStorages).toEqual([['first', 'rest']]);
    expect(checkpoint.aliases.size).toBe(0);
  });

  it('refuses a view that reaches past its storage, naming the tensor', () => {
    const st = [{ key: '0', dtype: 'F32' as const, values: new Float32Array(4) }];
    const run = () => readTorchCheckpoint(encode(st, [{ name: 'too.big', storage: '0', offset: 1, shape: [4] }]), FILE);
    expect(run).toThrow(CheckpointFormatError);
    expect(run).toThrow(/too\.big.*element 4 of a 4-element storage/);
  });
});

describe('restricted unpickling', () => {
  it.each([
    ['builtins', 'eval'],
    ['os', 'system'],
    ['torch', 'load'],
    ['collections', 'defaultdict'],
    ['torch._utils', '_rebuild_qtensor'],
  ])('refuses the global %s.%s by name', (module, name) => {
    const zip = encodeStoredZip([['archive/data.pkl', pickleCalling(module, name)]]);
    expect(() => readTorchCheckpoint(zip, FILE)).toThrow(new RegExp(`refuses pickle global "${module}\\.${name}"`));
  });

  it('refuses an opcode a state dict never uses (INST)', () => {
    const zip = encodeStoredZip([['archive/data.pkl', new Uint8Array([0x80, 2, 0x69, 0x6f, 0x73, 0x0a, 0x2e])]]);
    expect(() => readTorchCheckpoint(zip, FILE)).toThrow(/opcode 0x69/);
  });

  it('refuses a pickle whose top value is not a dict of tensors', () => {
    const zip = encodeStoredZip([['archive/data.pkl', new Uint8Array([0x80, 2, 0x7d, 0x8c, 1, 0x61, 0x4b, 7, 0x73, 0x2e])]]);
    expect(() => readTorchCheckpoint(zip, FILE)).toThrow(/tensor "a": value is 7, not a tensor/);
  });

  it('refuses compressed zip entries and files that are neither zip nor pickle', () => {
    const { storages, tensors } = tinyBertTorchState(1);
    const zip = encodeTorchZip(storages, tensors);
    const compressed = zip.slice();
    const view = new DataView(compressed.buffer);
    const directory = view.getUint32(compressed.length - 22 + 16, true); // first central entry: patch its method
    view.setUint16(directory + 10, 8, true);
    expect(() => readTorchCheckpoint(compressed, FILE)).toThrow(/compressed \(method 8\)/);
    expect(() => readTorchCheckpoint(new TextEncoder().encode('hello world'), FILE)).toThrow(
      /neither a zip archive nor a legacy pickle/,
    );
  });

  it('detects corrupted tensor data in a zip through its CRC-32', () => {
    const { storages, tensors } = tinyBertTorchState(1);
    const zip = encodeTorchZip(storages, tensors);
    zip[readZipDirectory(zip, FILE).get('archive/data/0')!.dataOffset + 5] ^= 0x10;
    expect(() => readTorchCheckpoint(zip, FILE)).toThrow(/CRC-32/);
  });
});

// safetensors: dtypes decode exactly, the writer round-trips bit for bit, and every kind of lying header is refused by name.
import { describe, expect, it } from 'vitest';
import { Random } from '../../../src/util/random.ts';
import { CheckpointFormatError } from '../../../src/io/format-error.ts';
import { parseSafetensorsHeader, readSafetensors, writeSafetensors } from '../../../src/io/formats/safetensors.ts';
import { encodeSafetensorsRaw, encodeValues, exactValues, type FixtureDtype } from '../../helpers/checkpoint-fixtures.ts';

const FILE = 'model.safetensors';

function twoTensorFile(editHeader?: (header: Record<string, any>) => void): Uint8Array {
  const random = new Random(3);
  return encodeSafetensorsRaw(
    [
      { name: 'a.weight', dtype: 'F32', shape: [2, 3], bytes: encodeValues(exactValues(6, random), 'F32') },
      { name: 'b.bias', dtype: 'F32', shape: [3], bytes: encodeValues(exactValues(3, random), 'F32') },
    ],
    editHeader,
  );
}

function expectFormatError(run: () => unknown, ...fragments: string[]): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(CheckpointFormatError);
  for (const fragment of fragments) expect((caught as Error).message).toContain(fragment);
}

describe('safetensors reader', () => {
  it.each<FixtureDtype>(['F32', 'F16', 'BF16'])('decodes %s exactly into fp32', (dtype) => {
    const values = exactValues(24, new Random(7));
    const bytes = encodeSafetensorsRaw([{ name: 'w', dtype, shape: [4, 6], bytes: encodeValues(values, dtype) }]);
    const { tensors } = readSafetensors(bytes, FILE);
    expect(tensors.get('w')!.shape).toEqual([4, 6]);
    expect(Array.from(tensors.get('w')!.data)).toEqual(Array.from(values));
  });

  it('decodes F64 and I64 tensors (odd checkpoints) to fp32 values', () => {
    const f64 = new Float64Array([1.5, -2.25, 1e-3]);
    const i64 = new BigInt64Array([0n, 7n, -3n]);
    const bytes = encodeSafetensorsRaw([
      { name: 'f', dtype: 'F64', shape: [3], bytes: new Uint8Array(f64.buffer) },
      { name: 'position_ids', dtype: 'I64', shape: [1, 3], bytes: new Uint8Array(i64.buffer) },
    ]);
    const { tensors } = readSafetensors(bytes, FILE);
    expect(Array.from(tensors.get('f')!.data)).toEqual(Array.from(new Float32Array(f64)));
    expect(Array.from(tensors.get('position_ids')!.data)).toEqual([0, 7, -3]);
  });

  it('reads the metadata and lists entries in data order', () => {
    const header = parseSafetensorsHeader(twoTensorFile(), FILE, twoTensorFile().length);
    expect(header.metadata).toEqual({ format: 'pt' });
    expect(header.entries.map((e) => [e.name, e.begin, e.end])).toEqual([
      ['a.weight', 0, 24],
      ['b.bias', 24, 36],
    ]);
  });

  it('accepts zero-sized tensors', () => {
    const bytes = encodeSafetensorsRaw([
      { name: 'empty', dtype: 'F32', shape: [0, 4], bytes: new Uint8Array(0) },
      { name: 'x', dtype: 'F16', shape: [1], bytes: encodeValues(new Float32Array([0.5]), 'F16') },
    ]);
    const { tensors } = readSafetensors(bytes, FILE);
    expect(tensors.get('empty')!.data.length).toBe(0);
    expect(tensors.get('x')!.data[0]).toBe(0.5);
  });
});

describe('safetensors writer', () => {
  it('round-trips fp32 tensors bit for bit, NaN payloads and -0 included', () => {
    const data = new Float32Array([0, -0, 1.5, NaN, Infinity, -1e-40, 3.4e38]);
    new Uint32Array(data.buffer)[3] = 0x7fc01234; // a NaN with a payload
    const tensors = new Map([
      ['z.last', { shape: [7], data }],
      ['a.first', { shape: [1, 2], data: new Float32Array([1, 2]) }],
    ]);
    const bytes = writeSafetensors(tensors, { format: 'pt' });
    expect((8 + Number(new DataView(bytes.buffer).getBigUint64(0, true))) % 8).toBe(0);
    const { header, tensors: back } = readSafetensors(bytes, FILE);
    expect(header.metadata).toEqual({ format: 'pt' });
    expect(Array.from(new Uint32Array(back.get('z.last')!.data.buffer))).toEqual(Array.from(new Uint32Array(data.buffer)));
    expect(back.get('a.first')!.shape).toEqual([1, 2]);
  });

  it('refuses one tensor object saved under two names', () => {
    const shared = { shape: [2], data: new Float32Array(2) };
    expect(() =>
      writeSafetensors(
        new Map([
          ['a', shared],
          ['b', shared],
        ]),
      ),
    ).toThrow(/same tensor/);
  });
});

describe('safetensors validation names the file and the tensor', () => {
  const cases: [string, () => Uint8Array, string[]][] = [
    ['a file shorter than the length prefix', () => new Uint8Array([1, 2, 3]), ['truncated']],
    ['a header length past the end', () => twoTensorFile().slice(0, 40), ['header length', 'past the end']],
    [
      'a header length over 100 MB',
      () => {
        const bytes = twoTensorFile();
        new DataView(bytes.buffer).setBigUint64(0, 1n << 40n, true);
        return bytes;
      },
      ['100 MB'],
    ],
    [
      'a header that is not JSON',
      () => {
        const bytes = twoTensorFile();
        bytes[8] = 0x5b; // '[' ... breaks the object
        bytes[9] = 0x7b;
        return bytes;
      },
      ['not valid UTF-8 JSON'],
    ],
    [
      'data offsets past the end',
      () => twoTensorFile((h) => ((h['b.bias'].data_offsets = [24, 48]), (h['b.bias'].shape = [6]))),
      ['b.bias', 'past the end'],
    ],
    ['overlapping ranges', () => twoTensorFile((h) => (h['b.bias'].data_offsets = [20, 32])), ['b.bias', 'overlap']],
    [
      'a gap between tensors',
      () => twoTensorFile((h) => ((h['a.weight'].data_offsets = [0, 20]), (h['a.weight'].shape = [5]))),
      ['b.bias', 'gap'],
    ],
    ['an unknown dtype', () => twoTensorFile((h) => (h['a.weight'].dtype = 'F8_E9M9')), ['a.weight', 'unknown dtype', 'F8_E9M9']],
    [
      'a shape that does not match the byte range',
      () => twoTensorFile((h) => (h['a.weight'].shape = [3, 3])),
      ['a.weight', 'needs 36 bytes', 'span 24'],
    ],
    ['a negative dimension', () => twoTensorFile((h) => (h['a.weight'].shape = [-2, -3])), ['a.weight', 'shape']],
    ['offsets that are not a pair', () => twoTensorFile((h) => (h['a.weight'].data_offsets = [0])), ['a.weight', 'data_offsets']],
    ['bytes after the last tensor', () => new Uint8Array([...twoTensorFile(), 0, 0, 0, 0]), ['trailing bytes']],
    ['non-string metadata', () => twoTensorFile((h) => (h.__metadata__ = { format: 1 })), ['__metadata__']],
  ];
  it.each(cases)('refuses %s', (_, make, fragments) => {
    expectFormatError(() => readSafetensors(make(), FILE), FILE, ...fragments);
  });
});

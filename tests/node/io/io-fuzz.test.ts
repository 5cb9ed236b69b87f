// Fuzzing the checkpoint readers with seeded corrupt files (truncations, byte flips, lying headers): each either
// fails with a CheckpointFormatError that has a message, or returns tensors whose data fits their shapes
// (and, for zip archives, whose CRC-32 guards the data: exactly the original tensors).
import { describe, expect, it } from 'vitest';
import { Random } from '../../../src/util/random.ts';
import { CheckpointFormatError } from '../../../src/io/format-error.ts';
import { tensorSize, type TensorMap } from '../../../src/io/host-tensor.ts';
import { readSafetensors } from '../../../src/io/formats/safetensors.ts';
import { readTorchCheckpoint } from '../../../src/io/formats/torch-pickle.ts';
import {
  encodeSafetensors,
  encodeSafetensorsRaw,
  encodeTorchLegacy,
  encodeTorchZip,
  tinyBertSafetensorsTensors,
  tinyBertTorchState,
} from '../../helpers/checkpoint-fixtures.ts';

type Reader = (bytes: Uint8Array) => TensorMap;

const readers: Record<string, { bytes: Uint8Array; read: Reader; crcGuarded: boolean }> = {
  safetensors: {
    bytes: encodeSafetensors(tinyBertSafetensorsTensors(9), 'F16'),
    read: (b) => readSafetensors(b, 'fuzz.safetensors').tensors,
    crcGuarded: false,
  },
  'pytorch zip': (() => {
    const { storages, tensors } = tinyBertTorchState(9);
    return {
      bytes: encodeTorchZip(storages, tensors),
      read: (b: Uint8Array) => readTorchCheckpoint(b, 'fuzz.bin').tensors,
      crcGuarded: true,
    };
  })(),
  'pytorch legacy': (() => {
    const { storages, tensors } = tinyBertTorchState(9);
    return {
      bytes: encodeTorchLegacy(storages, tensors),
      read: (b: Uint8Array) => readTorchCheckpoint(b, 'fuzz.bin').tensors,
      crcGuarded: false,
    };
  })(),
};

function outcome(read: Reader, bytes: Uint8Array): { error: unknown } | { tensors: TensorMap } {
  try {
    return { tensors: read(bytes) };
  } catch (error) {
    return { error };
  }
}

function fingerprint(tensors: TensorMap): string {
  return JSON.stringify(
    [...tensors].map(([name, t]) => [
      name,
      t.shape,
      Array.from(new Uint32Array(t.data.buffer, t.data.byteOffset, t.data.length)),
    ]),
  );
}

function expectCleanError(error: unknown): void {
  expect(error).toBeInstanceOf(CheckpointFormatError);
  expect((error as Error).message.length).toBeGreaterThan(10);
}

describe.each(Object.keys(readers))('fuzzing the %s reader', (kind) => {
  const { bytes, read, crcGuarded } = readers[kind];
  const original = fingerprint(read(bytes));

  it('refuses every truncation (one every 3 bytes)', () => {
    for (let length = 0; length < bytes.length; length += 3) {
      const result = outcome(read, bytes.slice(0, length));
      expect('error' in result, `truncated to ${length} of ${bytes.length} bytes`).toBe(true);
      if ('error' in result) expectCleanError(result.error);
    }
  });

  it('survives 300 seeded random byte flips with an error or well-formed tensors', () => {
    const random = new Random(kind.length * 7919);
    let refused = 0;
    for (let trial = 0; trial < 300; trial++) {
      const corrupt = bytes.slice();
      const flips = 1 + random.int(3);
      for (let f = 0; f < flips; f++) corrupt[random.int(corrupt.length)] ^= 1 << random.int(8);
      const result = outcome(read, corrupt);
      if ('error' in result) {
        expectCleanError(result.error);
        refused++;
        continue;
      }
      for (const [name, tensor] of result.tensors) expect(tensor.data.length, name).toBe(tensorSize(tensor.shape));
      if (crcGuarded) expect(fingerprint(result.tensors), `trial ${trial}`).toBe(original);
    }
    expect(refused).toBeGreaterThan(0);
  });
});

describe('fuzzing safetensors headers that lie', () => {
  const random = new Random(2024);
  const entries = [...tinyBertSafetensorsTensors(4)].map(([name, t]) => ({
    name,
    dtype: 'F32',
    shape: t.shape,
    bytes: new Uint8Array(t.data.slice().buffer),
  }));
  const lies: ((header: Record<string, any>, name: string) => void)[] = [
    (h, n) => (h[n].shape = h[n].shape.map((d: number) => d + 1)),
    (h, n) => (h[n].shape = [...h[n].shape, 2]),
    (h, n) => (h[n].data_offsets[1] += 1 + random.int(64)),
    (h, n) => (h[n].data_offsets[0] = Math.max(0, h[n].data_offsets[0] - 1 - random.int(8))),
    (h, n) => (h[n].data_offsets = [h[n].data_offsets[0], h[n].data_offsets[1] + 1e12]),
    (h, n) => (h[n].dtype = ['F16', 'BF16', 'F64', 'Q4', 'f32', ''][random.int(6)]),
    (h, n) => (h[n].shape = [1e9, 1e9]),
    (h, n) => (h[n].data_offsets = 'all'),
    (h, n) => (h[n] = 42),
  ];
  it('refuses 200 randomly chosen lies about a random tensor', () => {
    for (let trial = 0; trial < 200; trial++) {
      const lie = lies[random.int(lies.length)];
      const name = entries[random.int(entries.length)].name;
      const bytes = encodeSafetensorsRaw(entries, (header) => lie(header, name));
      const result = outcome((b) => readSafetensors(b, 'lying.safetensors').tensors, bytes);
      expect('error' in result, `trial ${trial}: ${name}`).toBe(true);
      if ('error' in result) expectCleanError(result.error);
    }
  });
});

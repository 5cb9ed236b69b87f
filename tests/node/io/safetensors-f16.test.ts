// The F16 safetensors writer: every half value round-trips exactly through the reader, and fp32 values round to the
// nearest half (ties to even), overflow to Inf, underflow through the subnormals to zero.
import { describe, expect, it } from 'vitest';
import { decodeToFloat32 } from '../../../src/io/formats/dtype.ts';
import { floatToHalf, readSafetensors, writeSafetensors } from '../../../src/io/formats/safetensors.ts';

describe('F16 safetensors', () => {
  it('every finite half value survives half -> fp32 -> half', () => {
    const bits = new Uint8Array(2);
    for (let h = 0; h < 0x10000; h++) {
      if ((h & 0x7c00) === 0x7c00 && h & 0x3ff) continue; // NaNs: any NaN is fine
      bits[0] = h & 0xff;
      bits[1] = h >>> 8;
      expect(floatToHalf(decodeToFloat32(bits, 'F16', 1)[0]), `0x${h.toString(16)}`).toBe(h);
    }
  });

  it('rounds to the nearest half, ties to even; overflow is Inf, tiny values are 0', () => {
    expect(floatToHalf(1 + 2 ** -11)).toBe(0x3c00); // a tie between 1 and its next half: even (1)
    expect(floatToHalf(1 + 3 * 2 ** -11)).toBe(0x3c02); // a tie: even (upward)
    expect(floatToHalf(1 + 2 ** -11 + 2 ** -20)).toBe(0x3c01); // just past the tie
    expect(floatToHalf(70000)).toBe(0x7c00);
    expect(floatToHalf(-70000)).toBe(0xfc00);
    expect(floatToHalf(2 ** -26)).toBe(0);
    expect(floatToHalf(2 ** -24)).toBe(1); // the smallest subnormal
  });

  it('a file written as F16 reads back as the rounded values', () => {
    const data = Float32Array.from([0.1, -2.5, 3.14159, 65504, 1e-6]);
    const bytes = writeSafetensors([['w', { shape: [5], data }]], {}, 'F16');
    const read = readSafetensors(bytes, 'w.safetensors').tensors.get('w')!;
    expect(read.shape).toEqual([5]);
    read.data.forEach((x, i) => expect(Math.abs(x - data[i])).toBeLessThanOrEqual(Math.abs(data[i]) * 2 ** -11 + 2 ** -25));
  });
});

describe('safetensors from a Node Buffer', () => {
  it('decodes F32 tensors of a pooled Buffer to their own lengths (a Buffer slice is a view, not a copy)', () => {
    const file = writeSafetensors([
      ['a', { shape: [2], data: Float32Array.of(1, 2) }],
      ['b', { shape: [3], data: Float32Array.of(3, 4, 5) }],
    ]);
    const pooled = Buffer.from(file); // small Buffers share Node's pool: their .buffer is larger than themselves
    const read = readSafetensors(pooled, 'pooled.safetensors').tensors;
    expect(Array.from(read.get('a')!.data)).toEqual([1, 2]);
    expect(Array.from(read.get('b')!.data)).toEqual([3, 4, 5]);
  });
});

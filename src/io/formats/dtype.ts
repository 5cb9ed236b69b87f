// Element types found in checkpoints (safetensors names) and their decoding into fp32, the only host precision we use.

export type StorageDtype = 'F64' | 'F32' | 'F16' | 'BF16' | 'I64' | 'I32' | 'I16' | 'I8' | 'U8' | 'BOOL';

export const DTYPE_BYTES: Readonly<Record<StorageDtype, number>> = {
  F64: 8,
  F32: 4,
  F16: 2,
  BF16: 2,
  I64: 8,
  I32: 4,
  I16: 2,
  I8: 1,
  U8: 1,
  BOOL: 1,
};

export function isStorageDtype(name: string): name is StorageDtype {
  return Object.prototype.hasOwnProperty.call(DTYPE_BYTES, name);
}

/** IEEE half (binary16) bits to a number. */
function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/**
 * Decodes `count` little-endian elements of `dtype` starting at `bytes[0]` into a fresh Float32Array.
 * The caller has already checked that `bytes` holds at least count * DTYPE_BYTES[dtype] bytes.
 */
export function decodeToFloat32(bytes: Uint8Array, dtype: StorageDtype, count: number): Float32Array {
  const byteLength = count * DTYPE_BYTES[dtype];
  if (dtype === 'F32') {
    // Uint8Array's slice copies into a new, 4-byte aligned buffer, whatever the source offset was (called as
    // Uint8Array's: a Node Buffer's own slice is a view of its whole pool, not a copy)
    return new Float32Array(Uint8Array.prototype.slice.call(bytes, 0, byteLength).buffer);
  }
  const out = new Float32Array(count);
  if (dtype === 'BF16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < count; i++) bits[i] = (bytes[2 * i] | (bytes[2 * i + 1] << 8)) << 16;
    return out;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, byteLength);
  switch (dtype) {
    case 'F64':
      for (let i = 0; i < count; i++) out[i] = view.getFloat64(8 * i, true);
      break;
    case 'F16':
      for (let i = 0; i < count; i++) out[i] = halfToFloat(view.getUint16(2 * i, true));
      break;
    case 'I64':
      for (let i = 0; i < count; i++) out[i] = Number(view.getBigInt64(8 * i, true));
      break;
    case 'I32':
      for (let i = 0; i < count; i++) out[i] = view.getInt32(4 * i, true);
      break;
    case 'I16':
      for (let i = 0; i < count; i++) out[i] = view.getInt16(2 * i, true);
      break;
    case 'I8':
      for (let i = 0; i < count; i++) out[i] = view.getInt8(i);
      break;
    case 'U8':
    case 'BOOL':
      for (let i = 0; i < count; i++) out[i] = view.getUint8(i);
      break;
  }
  return out;
}

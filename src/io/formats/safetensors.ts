// safetensors reader and writer: a strictly validated header first, then tensors decoded to fp32 (F32/F16/BF16/F64/ints).
import { CheckpointFormatError, clip } from '../format-error.ts';
import { DTYPE_BYTES, decodeToFloat32, isStorageDtype, type StorageDtype } from './dtype.ts';
import { tensorSize, type HostTensor, type TensorMap } from '../host-tensor.ts';

/** One tensor as the header describes it; offsets count bytes from the start of the data section. */
export interface SafetensorsEntry {
  name: string;
  dtype: StorageDtype;
  shape: number[];
  begin: number;
  end: number;
}

export interface SafetensorsHeader {
  file: string;
  /** Byte offset of the data section in the file (8 + header length). */
  dataStart: number;
  /** Entries in data order. */
  entries: SafetensorsEntry[];
  metadata: Record<string, string>;
}

/** The safetensors format caps the JSON header at 100 MB; anything larger is a corrupt length. */
const MAX_HEADER_BYTES = 100_000_000;

/** Reads the 8-byte little-endian header length and checks it against the file size. */
export function safetensorsHeaderLength(prefix: Uint8Array, file: string, fileSize: number): number {
  if (prefix.length < 8 || fileSize < 8) {
    throw new CheckpointFormatError(
      file,
      `truncated: ${Math.min(prefix.length, fileSize)} bytes, a safetensors file starts with an 8-byte header length`,
    );
  }
  const view = new DataView(prefix.buffer, prefix.byteOffset, 8);
  const length = view.getBigUint64(0, true);
  if (length > BigInt(MAX_HEADER_BYTES)) {
    throw new CheckpointFormatError(
      file,
      `header length ${length} is over the 100 MB limit of the format (corrupt or not a safetensors file)`,
    );
  }
  const n = Number(length);
  if (8 + n > fileSize) {
    throw new CheckpointFormatError(
      file,
      `header length ${n} runs past the end of the file (${fileSize} bytes): the file is truncated`,
    );
  }
  return n;
}

/** A header value for an error message, clipped (a hostile header can hold a million-entry shape). */
function quoted(value: unknown): string {
  return clip(JSON.stringify(value) ?? String(value), 60);
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function parseEntry(file: string, name: string, raw: unknown): SafetensorsEntry {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new CheckpointFormatError(file, 'header entry is not an object with dtype, shape and data_offsets', name);
  }
  const { dtype, shape, data_offsets: offsets } = raw as Record<string, unknown>;
  if (typeof dtype !== 'string' || !isStorageDtype(dtype)) {
    throw new CheckpointFormatError(file, `unknown dtype ${quoted(dtype)} (known: ${Object.keys(DTYPE_BYTES).join(', ')})`, name);
  }
  if (!Array.isArray(shape) || !shape.every(isNonNegativeInteger)) {
    throw new CheckpointFormatError(file, `shape ${quoted(shape)} is not a list of non-negative integers`, name);
  }
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isNonNegativeInteger) || offsets[0] > offsets[1]) {
    throw new CheckpointFormatError(file, `data_offsets ${quoted(offsets)} is not a [begin, end] pair with begin <= end`, name);
  }
  const [begin, end] = offsets as [number, number];
  const bytes = tensorSize(shape) * DTYPE_BYTES[dtype];
  if (bytes !== end - begin) {
    throw new CheckpointFormatError(
      file,
      `shape ${quoted(shape)} of ${dtype} needs ${bytes} bytes but data_offsets [${begin}, ${end}] span ${end - begin}`,
      name,
    );
  }
  return { name, dtype, shape: shape as number[], begin, end };
}

function parseMetadata(file: string, raw: unknown): Record<string, string> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !Object.values(raw).every((v) => typeof v === 'string')) {
    throw new CheckpointFormatError(file, '__metadata__ must be an object of string values');
  }
  return raw as Record<string, string>;
}

/** Checks that the entries tile the data section exactly: no gap, no overlap, nothing past the end. */
function checkLayout(file: string, entries: SafetensorsEntry[], dataBytes: number): void {
  let cursor = 0;
  for (const entry of entries) {
    if (entry.end > dataBytes) {
      throw new CheckpointFormatError(
        file,
        `data_offsets [${entry.begin}, ${entry.end}] run past the end of the data section (${dataBytes} bytes)`,
        entry.name,
      );
    }
    if (entry.begin < cursor) {
      throw new CheckpointFormatError(
        file,
        `data_offsets [${entry.begin}, ${entry.end}] overlap the previous tensor (which ends at ${cursor})`,
        entry.name,
      );
    }
    if (entry.begin > cursor) {
      throw new CheckpointFormatError(
        file,
        `gap of ${entry.begin - cursor} bytes before it: tensors must be contiguous`,
        entry.name,
      );
    }
    cursor = entry.end;
  }
  if (cursor !== dataBytes) {
    throw new CheckpointFormatError(
      file,
      `tensors cover ${cursor} bytes of a ${dataBytes}-byte data section: trailing bytes or a lying header`,
    );
  }
}

/**
 * Parses and validates the header. `bytes` must hold at least the first 8 + header-length bytes;
 * `fileSize` is the size of the whole file (used to check every range).
 */
export function parseSafetensorsHeader(bytes: Uint8Array, file: string, fileSize: number): SafetensorsHeader {
  const length = safetensorsHeaderLength(bytes, file, fileSize);
  if (bytes.length < 8 + length) {
    throw new CheckpointFormatError(file, `only ${bytes.length} bytes available, the header needs ${8 + length}`);
  }
  let json: unknown;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + length));
    json = JSON.parse(text);
  } catch (error) {
    throw new CheckpointFormatError(
      file,
      `header is not valid UTF-8 JSON (${clip(error instanceof Error ? error.message : String(error), 120)})`,
    );
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new CheckpointFormatError(file, 'header is not a JSON object');
  }
  let metadata: Record<string, string> = Object.create(null);
  const entries: SafetensorsEntry[] = [];
  for (const [name, raw] of Object.entries(json)) {
    if (name === '__metadata__') metadata = parseMetadata(file, raw);
    else entries.push(parseEntry(file, name, raw));
  }
  entries.sort((a, b) => a.begin - b.begin || a.end - b.end);
  checkLayout(file, entries, fileSize - 8 - length);
  return { file, dataStart: 8 + length, entries, metadata };
}

/** fp32 bytes the tensors of a header take once decoded. */
export function decodedBytes(header: SafetensorsHeader): number {
  return header.entries.reduce((sum, e) => sum + 4 * tensorSize(e.shape), 0);
}

/** Decodes the tensors of an already validated header from the whole file's bytes. */
export function decodeSafetensors(bytes: Uint8Array, header: SafetensorsHeader): TensorMap {
  const tensors: TensorMap = new Map();
  for (const entry of header.entries) {
    const start = header.dataStart + entry.begin;
    const data = decodeToFloat32(bytes.subarray(start, header.dataStart + entry.end), entry.dtype, tensorSize(entry.shape));
    tensors.set(entry.name, { shape: [...entry.shape], data });
  }
  return tensors;
}

/** Validates, then decodes every tensor of a safetensors file to fp32. */
export function readSafetensors(bytes: Uint8Array, file: string): { header: SafetensorsHeader; tensors: TensorMap } {
  const header = parseSafetensorsHeader(bytes, file, bytes.length);
  return { header, tensors: decodeSafetensors(bytes, header) };
}

/**
 * Writes fp32 tensors as safetensors (names sorted, header padded with spaces to 8 bytes as the reference writer does),
 * as F32, or as F16 (rounded to nearest even) with `dtype` 'F16'. One HostTensor object under two names is refused:
 * tied weights are saved once, under one name.
 */
export function writeSafetensors(
  tensors: Iterable<[string, HostTensor]>,
  metadata: Record<string, string> = {},
  dtype: 'F32' | 'F16' = 'F32',
): Uint8Array {
  const width = dtype === 'F16' ? 2 : 4;
  const sorted = [...tensors].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const seen = new Map<HostTensor, string>();
  const header: Record<string, unknown> = { __metadata__: metadata };
  let offset = 0;
  for (const [name, tensor] of sorted) {
    const other = seen.get(tensor);
    if (other !== undefined)
      throw new Error(`writeSafetensors: "${name}" and "${other}" are the same tensor; save tied weights once`);
    seen.set(tensor, name);
    if (tensor.data.length !== tensorSize(tensor.shape)) {
      throw new Error(`writeSafetensors: "${name}" has ${tensor.data.length} values but shape [${tensor.shape.join(', ')}]`);
    }
    header[name] = { dtype, shape: tensor.shape, data_offsets: [offset, offset + width * tensor.data.length] };
    offset += width * tensor.data.length;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  if (padded !== json.length) {
    const withSpaces = new Uint8Array(padded).fill(0x20);
    withSpaces.set(json);
    json = withSpaces;
  }
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let cursor = 8 + json.length;
  const view = new DataView(out.buffer);
  for (const [, tensor] of sorted) {
    if (dtype === 'F16') {
      for (let i = 0; i < tensor.data.length; i++) view.setUint16(cursor + 2 * i, floatToHalf(tensor.data[i]), true);
    } else {
      out.set(new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength), cursor);
    }
    cursor += width * tensor.data.length;
  }
  return out;
}

const F32_BITS = new Uint32Array(1);
const F32_VALUE = new Float32Array(F32_BITS.buffer);

/** The IEEE half nearest an fp32 value (ties to even; overflow to Inf, NaN kept, subnormals kept). */
export function floatToHalf(value: number): number {
  F32_VALUE[0] = value;
  const x = F32_BITS[0];
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  let mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    const half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    return sign | (half + (rest > mid || (rest === mid && half & 1) ? 1 : 0));
  }
  const half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && half & 1) ? 1 : 0));
}

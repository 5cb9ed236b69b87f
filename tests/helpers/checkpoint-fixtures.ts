// Writes tiny checkpoints for tests: safetensors (any dtype, or a raw lying header), PyTorch zip and legacy
// pytorch_model.bin (pickle written here, byte by byte, as torch.save lays it out) and config.json.
import { rmSync } from 'node:fs';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Random } from '../../src/util/random.ts';
import { crc32 } from '../../src/util/crc32.ts';
import type { TensorMap } from '../../src/io/host-tensor.ts';

export type FixtureDtype = 'F32' | 'F16' | 'BF16';

/** Folders made by makeTempDir and not yet removed (removeTempDirs removes them: a file's afterAll calls it). */
const madeFolders: string[] = [];

/** A new `<tmp>/<prefix>XXXXXX` folder; the test file removes it with removeTempDirs in its afterAll. */
export async function makeTempDir(prefix = 'splade-io-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  madeFolders.push(dir);
  return dir;
}

/** Removes every folder makeTempDir made, with everything in it. */
export function removeTempDirs(): void {
  for (const folder of madeFolders.splice(0)) rmSync(folder, { recursive: true, force: true });
}

/** Writes files (bytes, text or JSON-able values) under `dir`, creating sub-folders. */
export async function writeFolder(dir: string, files: Record<string, Uint8Array | string | object>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    await mkdir(dirname(path), { recursive: true });
    const data = content instanceof Uint8Array || typeof content === 'string' ? content : JSON.stringify(content, null, 2);
    await writeFile(path, data);
  }
}

/** Exact half bits of x; the fixtures only use values half represents exactly (multiples of 1/64 below 16). */
export function halfBits(x: number): number {
  if (x === 0) return Object.is(x, -0) ? 0x8000 : 0;
  const sign = x < 0 ? 0x8000 : 0;
  const a = Math.abs(x);
  const exponent = Math.floor(Math.log2(a));
  const fraction = a / 2 ** exponent - 1;
  const mantissa = fraction * 1024;
  if (exponent < -14 || exponent > 15 || !Number.isInteger(mantissa))
    throw new Error(`halfBits: ${x} is not exactly representable`);
  return sign | ((exponent + 15) << 10) | mantissa;
}

/** Little-endian bytes of `values` stored as `dtype` (F16/BF16 require exactly representable values). */
export function encodeValues(values: Float32Array, dtype: FixtureDtype): Uint8Array {
  if (dtype === 'F32') return new Uint8Array(values.slice().buffer);
  const out = new Uint8Array(values.length * 2);
  const bits = new Uint32Array(values.slice().buffer);
  for (let i = 0; i < values.length; i++) {
    let half: number;
    if (dtype === 'F16') half = halfBits(values[i]);
    else {
      if (bits[i] & 0xffff) throw new Error(`encodeValues: ${values[i]} is not exactly representable in bf16`);
      half = bits[i] >>> 16;
    }
    out[2 * i] = half & 0xff;
    out[2 * i + 1] = half >> 8;
  }
  return out;
}

/** Values that F32, F16 and BF16 all hold exactly: k/64 with |k| < 256. */
export function exactValues(n: number, random: Random): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (random.int(511) - 255) / 64;
  return out;
}

export interface RawSafetensorsEntry {
  name: string;
  dtype: string;
  shape: number[];
  bytes: Uint8Array;
}

/**
 * Lays out a safetensors file from raw entries. `editHeader` may rewrite the header object before it is written
 * (lying headers for error tests); offsets are filled in from the entries first.
 */
export function encodeSafetensorsRaw(
  entries: RawSafetensorsEntry[],
  editHeader?: (header: Record<string, any>) => void,
): Uint8Array {
  const header: Record<string, any> = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const entry of entries) {
    header[entry.name] = { dtype: entry.dtype, shape: entry.shape, data_offsets: [offset, offset + entry.bytes.length] };
    offset += entry.bytes.length;
  }
  editHeader?.(header);
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let cursor = 8 + json.length;
  for (const entry of entries) {
    out.set(entry.bytes, cursor);
    cursor += entry.bytes.length;
  }
  return out;
}

/** Safetensors bytes of a TensorMap stored in `dtype`. */
export function encodeSafetensors(tensors: TensorMap, dtype: FixtureDtype = 'F32'): Uint8Array {
  return encodeSafetensorsRaw(
    [...tensors].map(([name, t]) => ({ name, dtype, shape: t.shape, bytes: encodeValues(t.data, dtype) })),
  );
}

// ---------------------------------------------------------------- pickle, as torch.save writes a state dict

/** Emits pickle protocol 2 opcodes; globals are memoised with BINPUT/BINGET the way Python's pickler does. */
class PickleWriter {
  private readonly out: number[] = [];
  private readonly memo = new Map<string, number>();
  private nextMemo = 0;

  bytes(...values: number[]): this {
    this.out.push(...values);
    return this;
  }
  private u32(n: number): this {
    return this.bytes(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff);
  }
  put(): this {
    return this.bytes(0x71, this.nextMemo++); // BINPUT
  }
  string(text: string): this {
    const utf8 = new TextEncoder().encode(text);
    this.bytes(0x58).u32(utf8.length); // BINUNICODE
    this.out.push(...utf8);
    return this.put();
  }
  int(n: number): this {
    if (n >= 0 && n < 256) return this.bytes(0x4b, n); // BININT1
    if (n >= 0 && n < 65536) return this.bytes(0x4d, n & 0xff, n >> 8); // BININT2
    return this.bytes(0x4a).u32(n); // BININT
  }
  /** LONG1, as Python pickles ints beyond 32 bits (the legacy magic number). */
  long(value: bigint): this {
    const digits: number[] = [];
    let rest = value;
    while (rest > 0n || digits.length === 0 || digits[digits.length - 1] & 0x80) {
      digits.push(Number(rest & 0xffn));
      rest >>= 8n;
    }
    return this.bytes(0x8a, digits.length, ...digits);
  }
  global(module: string, name: string): this {
    const key = `${module}\n${name}\n`;
    const slot = this.memo.get(key);
    if (slot !== undefined) return this.bytes(0x68, slot); // BINGET
    this.bytes(0x63, ...new TextEncoder().encode(key)); // GLOBAL
    this.memo.set(key, this.nextMemo);
    return this.put();
  }
  tuple(items: number[]): this {
    if (items.length === 0) return this.bytes(0x29); // EMPTY_TUPLE
    if (items.length > 3) this.bytes(0x28); // MARK
    for (const item of items) this.int(item);
    return this.bytes(items.length > 3 ? 0x74 : 0x84 + items.length);
  }
  emptyOrderedDict(): this {
    return this.global('collections', 'OrderedDict').bytes(0x29, 0x52); // EMPTY_TUPLE REDUCE
  }
  finish(): Uint8Array {
    return new Uint8Array([...this.out, 0x2e]); // STOP
  }
}

export interface TorchFixtureStorage {
  key: string;
  dtype: FixtureDtype;
  values: Float32Array;
}

export interface TorchFixtureTensor {
  name: string;
  storage: string;
  offset?: number;
  shape: number[];
  /** Defaults to row-major contiguous strides. */
  stride?: number[];
}

const STORAGE_CLASS: Record<FixtureDtype, string> = { F32: 'FloatStorage', F16: 'HalfStorage', BF16: 'BFloat16Storage' };

function rowMajor(shape: number[]): number[] {
  return shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
}

/**
 * The state-dict pickle torch.save writes: OrderedDict of _rebuild_tensor_v2(persistent storage, offset, size,
 * stride, False, OrderedDict()), then BUILD with `_metadata`.
 */
export function encodeStateDictPickle(
  storages: TorchFixtureStorage[],
  tensors: TorchFixtureTensor[],
  legacy: boolean,
): Uint8Array {
  const w = new PickleWriter().bytes(0x80, 2).emptyOrderedDict().put().bytes(0x28); // PROTO 2, dict, MARK
  const byKey = new Map(storages.map((s) => [s.key, s]));
  for (const t of tensors) {
    const storage = byKey.get(t.storage);
    if (!storage) throw new Error(`fixture: unknown storage ${t.storage}`);
    w.string(t.name).global('torch._utils', '_rebuild_tensor_v2').bytes(0x28); // MARK
    w.bytes(0x28)
      .string('storage')
      .global('torch', STORAGE_CLASS[storage.dtype])
      .string(storage.key)
      .string('cpu')
      .int(storage.values.length);
    if (legacy) w.bytes(0x4e); // view_metadata None
    w.bytes(0x74, 0x51); // TUPLE BINPERSID
    w.int(t.offset ?? 0)
      .tuple(t.shape)
      .tuple(t.stride ?? rowMajor(t.shape))
      .bytes(0x89)
      .emptyOrderedDict()
      .bytes(0x74, 0x52); // NEWFALSE .. TUPLE REDUCE
  }
  w.bytes(0x75); // SETITEMS
  w.bytes(0x7d).string('_metadata').emptyOrderedDict().bytes(0x73, 0x62); // {'_metadata': OrderedDict()} BUILD
  return w.finish();
}

/**
 * A stored (uncompressed) zip with torch's 64-byte data alignment padding in the local extra field. Each `aliases`
 * pair adds a central-directory entry named `alias` that points at the bytes of entry `target` (a hostile archive).
 */
export function encodeStoredZip(files: [string, Uint8Array][], aliases: [alias: string, target: string][] = []): Uint8Array {
  const chunks: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  const centralOf = new Map<string, Uint8Array>();
  let offset = 0;
  for (const [name, data] of files) {
    const nameBytes = new TextEncoder().encode(name);
    const headerLength = 30 + nameBytes.length + 4;
    const padding = (64 - ((offset + headerLength) % 64)) % 64;
    const local = new Uint8Array(headerLength + padding);
    const lv = new DataView(local.buffer);
    const crc = crc32(data);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, data.length, true);
    lv.setUint32(22, data.length, true);
    lv.setUint16(26, nameBytes.length, true);
    lv.setUint16(28, 4 + padding, true);
    local.set(nameBytes, 30);
    lv.setUint16(30 + nameBytes.length, 0x4246, true); // "FB" padding field, as PyTorch writes
    lv.setUint16(32 + nameBytes.length, padding, true);
    const entry = new Uint8Array(46 + nameBytes.length);
    const cv = new DataView(entry.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, data.length, true);
    cv.setUint32(24, data.length, true);
    cv.setUint16(28, nameBytes.length, true);
    cv.setUint32(42, offset, true);
    entry.set(nameBytes, 46);
    chunks.push(local, data);
    central.push(entry);
    centralOf.set(name, entry);
    offset += local.length + data.length;
  }
  for (const [alias, target] of aliases) {
    const original = centralOf.get(target)!;
    const nameBytes = new TextEncoder().encode(alias);
    const entry = new Uint8Array(46 + nameBytes.length);
    entry.set(original.subarray(0, 46));
    new DataView(entry.buffer).setUint16(28, nameBytes.length, true);
    entry.set(nameBytes, 46);
    central.push(entry);
  }
  const centralSize = central.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, central.length, true);
  ev.setUint16(10, central.length, true);
  ev.setUint32(12, centralSize, true);
  ev.setUint32(16, offset, true);
  const all = [...chunks, ...central, end];
  const out = new Uint8Array(all.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of all) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** pytorch_model.bin in the zip format of torch >= 1.6. */
export function encodeTorchZip(storages: TorchFixtureStorage[], tensors: TorchFixtureTensor[], archive = 'archive'): Uint8Array {
  return encodeStoredZip([
    [`${archive}/data.pkl`, encodeStateDictPickle(storages, tensors, false)],
    [`${archive}/byteorder`, new TextEncoder().encode('little')],
    ...storages.map((s): [string, Uint8Array] => [`${archive}/data/${s.key}`, encodeValues(s.values, s.dtype)]),
    [`${archive}/version`, new TextEncoder().encode('3\n')],
  ]);
}

/** pytorch_model.bin in the legacy format: magic, protocol, sys info, state dict, key list, then raw storages. */
export function encodeTorchLegacy(storages: TorchFixtureStorage[], tensors: TorchFixtureTensor[]): Uint8Array {
  const magic = new PickleWriter().bytes(0x80, 2).long(0x1950a86a20f9469cfc6cn).finish();
  const protocol = new PickleWriter().bytes(0x80, 2).int(1001).finish();
  const sysInfo = new PickleWriter().bytes(0x80, 2, 0x7d).put().string('little_endian').bytes(0x88, 0x73).finish(); // {'little_endian': True}
  const keys = new PickleWriter().bytes(0x80, 2, 0x5d).put().bytes(0x28);
  for (const s of storages) keys.string(s.key);
  const parts = [magic, protocol, sysInfo, encodeStateDictPickle(storages, tensors, true), keys.bytes(0x65).finish()];
  for (const s of storages) {
    const count = new Uint8Array(8);
    new DataView(count.buffer).setBigInt64(0, BigInt(s.values.length), true);
    parts.push(count, encodeValues(s.values, s.dtype));
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// ---------------------------------------------------------------- a tiny BERT-named checkpoint

export const TINY_VOCAB = 11;
export const TINY_HIDDEN = 4;

export const TINY_BERT_CONFIG = {
  architectures: ['BertForMaskedLM'],
  model_type: 'bert',
  vocab_size: TINY_VOCAB,
  hidden_size: TINY_HIDDEN,
  num_hidden_layers: 1,
  num_attention_heads: 1,
  intermediate_size: 8,
  max_position_embeddings: 6,
  type_vocab_size: 2,
  tie_word_embeddings: true,
};

/**
 * The storages and tensors of a tiny BertForMaskedLM state dict exercising every layout the reader handles:
 * tied head (decoder.weight shares the word-embedding storage, decoder.bias shares cls.predictions.bias), a storage
 * offset (position embeddings start 3 elements into their storage), a transposed (non-contiguous) view, fp16 and bf16.
 */
export function tinyBertTorchState(seed = 1): {
  storages: TorchFixtureStorage[];
  tensors: TorchFixtureTensor[];
  expected: TensorMap;
} {
  const random = new Random(seed);
  const V = TINY_VOCAB;
  const C = TINY_HIDDEN;
  const storages: TorchFixtureStorage[] = [
    { key: '0', dtype: 'F32', values: exactValues(V * C, random) }, // word embeddings (V, C), tied to the head
    { key: '1', dtype: 'F32', values: exactValues(3 + 6 * C, random) }, // 3 junk values, then positions (6, C)
    { key: '2', dtype: 'F16', values: exactValues(C, random) }, // LayerNorm weight in fp16
    { key: '3', dtype: 'BF16', values: exactValues(C, random) }, // LayerNorm bias in bf16
    { key: '4', dtype: 'F32', values: exactValues(C * C, random) }, // query weight, stored transposed
    { key: '5', dtype: 'F32', values: exactValues(V, random) }, // head bias, shared with decoder.bias
  ];
  const tensors: TorchFixtureTensor[] = [
    { name: 'bert.embeddings.word_embeddings.weight', storage: '0', shape: [V, C] },
    { name: 'bert.embeddings.position_embeddings.weight', storage: '1', offset: 3, shape: [6, C] },
    { name: 'bert.embeddings.LayerNorm.weight', storage: '2', shape: [C] },
    { name: 'bert.embeddings.LayerNorm.bias', storage: '3', shape: [C] },
    { name: 'bert.encoder.layer.0.attention.self.query.weight', storage: '4', shape: [C, C], stride: [1, C] },
    { name: 'cls.predictions.bias', storage: '5', shape: [V] },
    { name: 'cls.predictions.decoder.weight', storage: '0', shape: [V, C] },
    { name: 'cls.predictions.decoder.bias', storage: '5', shape: [V] },
  ];
  const values = (key: string) => storages.find((s) => s.key === key)!.values;
  const transposed = new Float32Array(C * C);
  for (let i = 0; i < C; i++) for (let j = 0; j < C; j++) transposed[i * C + j] = values('4')[j * C + i];
  const word = { shape: [V, C], data: values('0').slice() };
  const bias = { shape: [V], data: values('5').slice() };
  const expected: TensorMap = new Map([
    ['bert.embeddings.word_embeddings.weight', word],
    ['bert.embeddings.position_embeddings.weight', { shape: [6, C], data: values('1').slice(3) }],
    ['bert.embeddings.LayerNorm.weight', { shape: [C], data: values('2').slice() }],
    ['bert.embeddings.LayerNorm.bias', { shape: [C], data: values('3').slice() }],
    ['bert.encoder.layer.0.attention.self.query.weight', { shape: [C, C], data: transposed }],
    ['cls.predictions.bias', bias],
    ['cls.predictions.decoder.weight', word],
    ['cls.predictions.decoder.bias', bias],
  ]);
  return { storages, tensors, expected };
}

/** The tiny BERT's tensors as transformers saves them to safetensors: tied head entries left out. */
export function tinyBertSafetensorsTensors(seed = 1): TensorMap {
  const { expected } = tinyBertTorchState(seed);
  const saved = new Map(expected);
  saved.delete('cls.predictions.decoder.weight');
  saved.delete('cls.predictions.decoder.bias');
  return saved;
}

export type TinyFormat = 'safetensors' | 'safetensors-sharded' | 'pytorch-zip' | 'pytorch-legacy';

/** Writes config.json and the tiny BERT's weights in `format` into `dir`; returns the expected tensors. */
export async function writeTinyBert(dir: string, format: TinyFormat, seed = 1): Promise<TensorMap> {
  const { storages, tensors, expected } = tinyBertTorchState(seed);
  const files: Record<string, Uint8Array | object> = { 'config.json': TINY_BERT_CONFIG };
  if (format === 'pytorch-zip') files['pytorch_model.bin'] = encodeTorchZip(storages, tensors);
  if (format === 'pytorch-legacy') files['pytorch_model.bin'] = encodeTorchLegacy(storages, tensors);
  if (format === 'safetensors') files['model.safetensors'] = encodeSafetensors(tinyBertSafetensorsTensors(seed));
  if (format === 'safetensors-sharded') {
    const all = [...tinyBertSafetensorsTensors(seed)];
    const shards = [new Map(all.slice(0, 3)), new Map(all.slice(3))];
    const weightMap: Record<string, string> = {};
    shards.forEach((shard, i) => {
      const name = `model-0000${i + 1}-of-00002.safetensors`;
      files[name] = encodeSafetensors(shard, i === 0 ? 'BF16' : 'F16');
      for (const key of shard.keys()) weightMap[key] = name;
    });
    files['model.safetensors.index.json'] = { metadata: { total_size: 0 }, weight_map: weightMap };
  }
  await writeFolder(dir, files);
  return expected;
}

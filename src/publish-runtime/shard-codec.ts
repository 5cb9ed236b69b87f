// The posting shards of a published search, both ways: encodeShard (publish time) and readShard (the runtime), one
// binary layout read back by the code that wrote it. Imports nothing: this folder is bundled into splade-search.js.
//
// A shard, little-endian, every count a LEB128 varint:
//   "SPS1"  u8 keyKind (0 token id, 1 text)  u8 weightKind (0 uint8, 1 float16, 2 float32)  u8 hasOwn  u8 0
//   termCount
//   per term:   key (id: the gap from the previous term's id | text: byte length, UTF-8, its order)   count   docBytes
//               f32 scale (uint8 weights only)
//   per term, in the same order:   document numbers as gaps (docBytes)   weights (count x 1, 2 or 4 bytes)
//                                  own-token flags, one bit per posting (ceil(count / 8) bytes, when hasOwn)

export const WEIGHT_KINDS = ['uint8', 'float16', 'float32'] as const;

/** How a posting's weight is stored: uint8 with a per-term scale (w = q x scale), IEEE half, or float32 (lossless). */
export type WeightKind = (typeof WEIGHT_KINDS)[number];

/** One term's postings: documents ascending, their weights, and (document side of SPLADE) whether the term is the document's own token. */
export interface TermPostings {
  key: number | string;
  /** A text key's place in the order its products are summed (BM25's term id); an id key's is the id. */
  order?: number;
  docs: Uint32Array; // (n,) ascending document numbers
  weights: Float32Array; // (n,)
  /** 1 where the term is one of the document's own tokens, 0 where it is an expansion; absent: all own (BM25). */
  own?: Uint8Array; // (n,)
}

const MAGIC = [0x53, 0x50, 0x53, 0x31]; // "SPS1"

/** float32 -> IEEE 754 half (round to nearest even; overflow to the largest finite half: weights are never infinite). */
export function toHalf(value: number): number {
  const f32 = new Float32Array([value]);
  const bits = new Uint32Array(f32.buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7bff;
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7bff;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = mantissa | 0x800000;
    const shift = 14 - e;
    const half = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    const middle = 1 << (shift - 1);
    return sign | (rest > middle || (rest === middle && half & 1) ? half + 1 : half);
  }
  const half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  const rounded = rest > 0x1000 || (rest === 0x1000 && half & 1) ? half + 1 : half;
  return sign | Math.min(rounded, 0x7bff);
}

/** IEEE 754 half -> number. */
export function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >>> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** The uint8 scale of a list whose largest weight is `max`: w = q x scale with q in 1..255. */
export function uint8Scale(max: number): number {
  return Math.fround(max > 0 ? max / 255 : 1);
}

/** A weight as uint8 under `scale`: round(w / scale), at least 1 (a kept posting never scores 0), at most 255. */
export function toUint8(weight: number, scale: number): number {
  return Math.max(1, Math.min(255, Math.round(weight / scale)));
}

const WEIGHT_BYTES: Record<WeightKind, number> = { uint8: 1, float16: 2, float32: 4 };

class Writer {
  private bytes = new Uint8Array(1024);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  u8(value: number): void {
    this.room(1);
    this.bytes[this.length++] = value;
  }

  u16(value: number): void {
    this.room(2);
    new DataView(this.bytes.buffer).setUint16(this.length, value, true);
    this.length += 2;
  }

  u32(value: number): void {
    this.room(4);
    new DataView(this.bytes.buffer).setUint32(this.length, value, true);
    this.length += 4;
  }

  f32(value: number): void {
    this.room(4);
    new DataView(this.bytes.buffer).setFloat32(this.length, value, true);
    this.length += 4;
  }

  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  varint(value: number): void {
    let v = value;
    while (v >= 0x80) {
      this.u8((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    this.u8(v);
  }

  result(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/** The stored form of one term's weights, and the scale that reads them back. */
function encodeWeights(weights: Float32Array, kind: WeightKind): { bytes: Uint8Array; scale: number } {
  const out = new Writer();
  let scale = 1;
  if (kind === 'uint8') {
    let max = 0;
    for (const w of weights) max = Math.max(max, w);
    scale = uint8Scale(max);
    for (const w of weights) out.u8(toUint8(w, scale));
  } else if (kind === 'float16') for (const w of weights) out.u16(toHalf(w));
  else for (const w of weights) out.f32(w);
  return { bytes: out.result(), scale };
}

/** One shard's bytes: terms in the order given (ascending ids for SPLADE), each list's documents ascending. */
export function encodeShard(terms: readonly TermPostings[], kind: WeightKind, withOwn: boolean): Uint8Array {
  const keyKind = terms.length > 0 && typeof terms[0].key === 'string' ? 1 : 0;
  const text = new TextEncoder();
  const head = new Writer();
  const body = new Writer();
  for (const b of MAGIC) head.u8(b);
  head.u8(keyKind);
  head.u8(WEIGHT_KINDS.indexOf(kind));
  head.u8(withOwn ? 1 : 0);
  head.u8(0);
  head.varint(terms.length);
  let previousId = 0;
  for (const term of terms) {
    if ((typeof term.key === 'string') !== (keyKind === 1)) throw new Error('a shard holds token ids or texts, not both');
    if (typeof term.key === 'string') {
      const bytes = text.encode(term.key);
      head.varint(bytes.length);
      head.raw(bytes);
      head.varint(term.order ?? 0);
    } else {
      if (term.key < previousId) throw new Error(`token ids of a shard must ascend (${previousId} then ${term.key})`);
      head.varint(term.key - previousId);
      previousId = term.key;
    }
    const docs = new Writer();
    let previous = 0;
    term.docs.forEach((d, i) => {
      if (i > 0 && d <= previous) throw new Error(`postings of term ${String(term.key)} are not in increasing document order`);
      docs.varint(i === 0 ? d : d - previous);
      previous = d;
    });
    const { bytes: weights, scale } = encodeWeights(term.weights, kind);
    head.varint(term.docs.length);
    head.varint(docs.length);
    if (kind === 'uint8') head.f32(scale);
    body.raw(docs.result());
    body.raw(weights);
    if (withOwn) {
      const flags = new Uint8Array(Math.ceil(term.docs.length / 8));
      term.docs.forEach((_, i) => {
        if (term.own?.[i] ?? 1) flags[i >> 3] |= 1 << (i & 7);
      });
      body.raw(flags);
    }
  }
  head.raw(body.result());
  return head.result();
}

/** A read shard: its terms' places, each list decoded on first use. */
export interface Shard {
  keys(): (number | string)[];
  has(key: number | string): boolean;
  postings(key: number | string): TermPostings | undefined;
}

interface TermPlace {
  order: number;
  count: number;
  scale: number;
  docBytes: number;
  offset: number; // where its documents start
}

/** Reads a shard written by encodeShard; `where` names it in errors. */
export function readShard(bytes: Uint8Array, where: string): Shard {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fail = (why: string): never => {
    throw new Error(`${where}: not a splade-lab posting shard (${why})`);
  };
  if (bytes.length < 9 || MAGIC.some((b, i) => bytes[i] !== b)) fail('no SPS1 header');
  const keyKind = bytes[4];
  const kind = WEIGHT_KINDS[bytes[5]] ?? fail(`weight kind ${bytes[5]}`);
  const hasOwn = bytes[6] === 1;
  let at = 8;
  const varint = (): number => {
    let value = 0;
    let factor = 1;
    for (;;) {
      if (at >= bytes.length) fail('cut short');
      const b = bytes[at++];
      value += (b & 0x7f) * factor;
      if (b < 0x80) return value;
      factor *= 128;
    }
  };
  const termCount = varint();
  const decoder = new TextDecoder();
  const places = new Map<number | string, TermPlace>();
  const order: (number | string)[] = [];
  let previousId = 0;
  for (let t = 0; t < termCount; t++) {
    let key: number | string;
    let termOrder: number;
    if (keyKind === 1) {
      const n = varint();
      key = decoder.decode(bytes.subarray(at, at + n));
      at += n;
      termOrder = varint();
    } else key = termOrder = previousId += varint();
    const count = varint();
    const docBytes = varint();
    const scale = kind === 'uint8' ? view.getFloat32(at, true) : 1;
    if (kind === 'uint8') at += 4;
    places.set(key, { order: termOrder, count, scale, docBytes, offset: 0 });
    order.push(key);
  }
  for (const key of order) {
    const place = places.get(key)!;
    place.offset = at;
    at += place.docBytes + place.count * WEIGHT_BYTES[kind] + (hasOwn ? Math.ceil(place.count / 8) : 0);
  }
  if (at !== bytes.length) fail(`${bytes.length} bytes where the header describes ${at}`);
  const decoded = new Map<number | string, TermPostings>();
  const decode = (key: number | string, place: TermPlace): TermPostings => {
    const docs = new Uint32Array(place.count);
    let p = place.offset;
    let previous = 0;
    for (let i = 0; i < place.count; i++) {
      let value = 0;
      let factor = 1;
      for (;;) {
        const b = bytes[p++];
        value += (b & 0x7f) * factor;
        if (b < 0x80) break;
        factor *= 128;
      }
      previous = i === 0 ? value : previous + value;
      docs[i] = previous;
    }
    const weights = new Float32Array(place.count);
    for (let i = 0; i < place.count; i++) {
      if (kind === 'uint8') weights[i] = bytes[p + i] * place.scale;
      else if (kind === 'float16') weights[i] = fromHalf(view.getUint16(p + 2 * i, true));
      else weights[i] = view.getFloat32(p + 4 * i, true);
    }
    p += place.count * WEIGHT_BYTES[kind];
    let own: Uint8Array | undefined;
    if (hasOwn) {
      own = new Uint8Array(place.count);
      for (let i = 0; i < place.count; i++) own[i] = (bytes[p + (i >> 3)] >> (i & 7)) & 1;
    }
    return { key, order: place.order, docs, weights, own };
  };
  return {
    keys: () => [...order],
    has: (key) => places.has(key),
    postings(key) {
      const place = places.get(key);
      if (!place) return undefined;
      let list = decoded.get(key);
      if (!list) decoded.set(key, (list = decode(key, place)));
      return list;
    },
  };
}

/** FNV-1a (32 bits) of a term's UTF-16 code units: which BM25 shard holds it. */
export function termHash(term: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) {
    h ^= term.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

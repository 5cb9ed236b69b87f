// Seeded mutations of a valid input for the readers' fuzz tests (the style of tests/node/io/io-fuzz.test.ts: a Random
// seeded per reader, a fixed number of cases): truncation, bit flips, inserted CR, NUL, huge numbers, deep nesting,
// invalid UTF-8 and byte-order marks, swapped fields, repeated or dropped lines, overwritten 32-bit numbers, and
// Parquet footers and page headers that lie.
import type { FileMetaData, PageHeader } from 'hyparquet';
import type { Random } from '../../src/util/random.ts';
import { withFooter, withPageHeader } from './parquet-fixtures.ts';

export type Mutation = (bytes: Uint8Array, random: Random) => Uint8Array;

const pick = <T>(random: Random, values: readonly T[]): T => values[random.int(values.length)];

const encode = (text: string) => new TextEncoder().encode(text);

function insert(bytes: Uint8Array, at: number, piece: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + piece.length);
  out.set(bytes.subarray(0, at));
  out.set(piece, at);
  out.set(bytes.subarray(at), at + piece.length);
  return out;
}

const insertAnywhere =
  (piece: (random: Random) => Uint8Array): Mutation =>
  (bytes, random) =>
    insert(bytes, random.int(bytes.length + 1), piece(random));

const BYTE_ORDER_MARKS = [
  [0xef, 0xbb, 0xbf],
  [0xff, 0xfe],
  [0xfe, 0xff],
];

const HUGE_NUMBERS = [
  '1e400',
  '-1e400',
  '12345678901234567890',
  '9'.repeat(400),
  '1e-400',
  'NaN',
  '-0',
  '0x7fffffff',
  '4294967296',
];

/** Splits on one of the separators fields and lines use, swaps two pieces, and joins again. */
const swapFields: Mutation = (bytes, random) => {
  const separator = pick(random, ['\t', ',', ':', '\n', '"']);
  const pieces = new TextDecoder().decode(bytes).split(separator);
  if (pieces.length < 2) return bytes;
  const [i, j] = [random.int(pieces.length), random.int(pieces.length)];
  [pieces[i], pieces[j]] = [pieces[j], pieces[i]];
  return encode(pieces.join(separator));
};

/** Repeats or drops one line. */
const lineEdit: Mutation = (bytes, random) => {
  const lines = new TextDecoder().decode(bytes).split('\n');
  const at = random.int(lines.length);
  if (random.int(2)) lines.splice(at, 0, lines[at]);
  else lines.splice(at, 1);
  return encode(lines.join('\n'));
};

/** Mutations of text inputs (TSV, JSON Lines, JSON). */
export const TEXT_MUTATIONS: Record<string, Mutation> = {
  truncate: (bytes, random) => bytes.slice(0, random.int(bytes.length)),
  'flip bits': (bytes, random) => {
    const out = bytes.slice();
    for (let f = 1 + random.int(3); f > 0 && out.length; f--) out[random.int(out.length)] ^= 1 << random.int(8);
    return out;
  },
  'insert CR': insertAnywhere(() => encode('\r')),
  'CR for every LF': (bytes) => encode(new TextDecoder().decode(bytes).replaceAll('\n', '\r')),
  'insert NUL': insertAnywhere(() => new Uint8Array(1)),
  'insert a huge number': insertAnywhere((random) => encode(pick(random, HUGE_NUMBERS))),
  'replace a number by a huge one': (bytes, random) => {
    const text = new TextDecoder().decode(bytes);
    const numbers = [...text.matchAll(/\d+/g)];
    if (numbers.length === 0) return bytes;
    const m = pick(random, numbers);
    return encode(text.slice(0, m.index) + pick(random, HUGE_NUMBERS) + text.slice(m.index + m[0].length));
  },
  'deep nesting': insertAnywhere((random) => encode((random.int(2) ? '[' : '{"a":').repeat(1000 + random.int(50_000)))),
  'invalid UTF-8': insertAnywhere((random) => new Uint8Array(pick(random, [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf4, 0x90]]))),
  'byte-order mark': (bytes, random) => insert(bytes, 0, new Uint8Array(pick(random, BYTE_ORDER_MARKS))),
  'swap fields': swapFields,
  'repeat or drop a line': lineEdit,
};

/** Mutations of binary inputs (Parquet): the text ones that make sense on bytes, and overwritten 32-bit numbers. */
export const BINARY_MUTATIONS: Record<string, Mutation> = {
  truncate: TEXT_MUTATIONS.truncate,
  'flip bits': TEXT_MUTATIONS['flip bits'],
  'insert NUL': TEXT_MUTATIONS['insert NUL'],
  'insert random bytes': insertAnywhere((random) => Uint8Array.from({ length: 1 + random.int(16) }, () => random.int(256))),
  'overwrite a 32-bit number': (bytes, random) => {
    const out = bytes.slice();
    const at = random.int(Math.max(1, out.length - 3));
    const value = pick(random, [0xffffffff, 0x7fffffff, 0x80000000, 0, 1e9]);
    if (at + 4 <= out.length) new DataView(out.buffer).setUint32(at, value, true);
    return out;
  },
  'thrift nesting': insertAnywhere((random) => new Uint8Array(1000 + random.int(50_000)).fill(0x1c)),
};

/** A Parquet lie as a mutation: applied when the bytes still parse, the bytes unchanged otherwise. */
const lying =
  (lie: (bytes: Uint8Array, random: Random) => Uint8Array): Mutation =>
  (bytes, random) => {
    try {
      return lie(bytes, random);
    } catch {
      return bytes;
    }
  };

const HUGE = [0n, 1n, 7n, 10n ** 9n, 10n ** 12n, 2n ** 62n, -1n];

const footerLies: ((m: FileMetaData, random: Random) => void)[] = [
  (m, r) => (pick(r, m.row_groups).num_rows = pick(r, HUGE)),
  (m, r) => (pick(r, pick(r, m.row_groups).columns).meta_data!.total_compressed_size = pick(r, HUGE)),
  (m, r) => (pick(r, pick(r, m.row_groups).columns).meta_data!.data_page_offset = pick(r, HUGE)),
  (m, r) => (pick(r, pick(r, m.row_groups).columns).meta_data!.dictionary_page_offset = pick(r, HUGE)),
  (m, r) => (pick(r, pick(r, m.row_groups).columns).meta_data!.codec = pick(r, ['ZSTD', 'GZIP', 'LZ4_RAW', 'BROTLI'] as const)),
  (m, r) => (pick(r, pick(r, m.row_groups).columns).meta_data!.type = pick(r, ['INT64', 'DOUBLE', 'BOOLEAN'] as const)),
  (m, r) => (pick(r, pick(r, m.row_groups).columns).meta_data!.path_in_schema = pick(r, [['x'], ['query', 'x'], []])),
  (m, r) => (pick(r, m.schema).num_children = pick(r, [0, 1, 5, 2 ** 31 - 1])),
  (m, r) => (m.schema[1 + r.int(m.schema.length - 1)].type = pick(r, ['INT64', 'INT96', 'FIXED_LEN_BYTE_ARRAY'] as const)),
  (m, r) => (m.schema[1 + r.int(m.schema.length - 1)].repetition_type = 'REPEATED'),
  (m) => (m.row_groups = []),
];

const pageLies: ((h: PageHeader, random: Random) => void)[] = [
  (h, r) => (h.uncompressed_page_size = pick(r, [0, 3, 1e9, 2 ** 31 - 1, -5])),
  (h, r) => (h.compressed_page_size = pick(r, [0, 3, 1e9, -1])),
  (h, r) => {
    const v2 = h.data_page_header_v2 ?? h.data_page_header ?? h.dictionary_page_header;
    if (v2) v2.num_values = pick(r, [0, 5, 2 ** 31 - 1, -1]);
  },
  (h, r) => {
    if (h.data_page_header_v2) h.data_page_header_v2.num_nulls = pick(r, [1, 2 ** 31 - 1, -1]);
  },
  (h, r) => {
    if (h.data_page_header_v2) h.data_page_header_v2.definition_levels_byte_length = pick(r, [2, 1e6, -1]);
  },
  (h, r) => (h.type = pick(r, ['INDEX_PAGE', 'DICTIONARY_PAGE', 'DATA_PAGE'] as const)),
];

/** Mutations of Parquet files: the binary ones, and a lie about one size, count, codec or type in the footer or in
 * a page header (left out when earlier mutations broke the file beyond rewriting). */
export const PARQUET_MUTATIONS: Record<string, Mutation> = {
  ...BINARY_MUTATIONS,
  'footer lie': lying((bytes, r) => withFooter(bytes, (m) => pick(r, footerLies)(m, r))),
  'page header lie': lying((bytes, r) =>
    withPageHeader(bytes, pick(r, ['query', 'positive', 'negative', 'negative_1']), (h) => pick(r, pageLies)(h, r), r.int(2)),
  ),
};

/** `bytes` after 1 to 3 mutations drawn from `mutations`, and their names. */
export function mutate(
  bytes: Uint8Array,
  mutations: Record<string, Mutation>,
  random: Random,
): { bytes: Uint8Array; applied: string[] } {
  const names = Object.keys(mutations);
  const applied: string[] = [];
  for (let n = 1 + random.int(3); n > 0; n--) {
    const name = pick(random, names);
    applied.push(name);
    bytes = mutations[name](bytes, random);
  }
  return { bytes, applied };
}

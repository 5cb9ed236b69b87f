// Fuzzing the data readers (issue 33's acceptance) with seeded mutations of valid inputs, a fixed number of cases
// each: triplets in TSV and JSONL (whole file and streamed index), Parquet (bytes, footers and page headers that lie),
// BEIR corpus and qrels, and run.json. Every case ends within a time bound in the reader's own error type naming the
// file (never a TypeError, RangeError or raw library error) or in well-formed rows, and memory stays bounded.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolderRunStore } from '../../../src/app/platform/run-store-node.ts';
import type { RunRecord } from '../../../src/contract/experiments/runs.ts';
import { RunRecorder } from '../../../src/app/training/run-recorder.ts';
import { AlarmWatcher } from '../../../src/app/training/alarm-watcher.ts';
import { StoredRecordError } from '../../../src/contract/experiments/stored-records.ts';
import { paperRecipe } from '../../../src/contract/training/recipe.ts';
import { parseBeirJsonl, parseBeirQrels } from '../../../src/io/beir/beir.ts';
import { ParquetFormatError } from '../../../src/io/formats/parquet-error.ts';
import { memoryFile } from '../../../src/io/random-access.ts';
import { TextDecodeError } from '../../../src/io/text-decode.ts';
import { indexTripletFile } from '../../../src/io/triplets/triplet-index.ts';
import { readParquetTriplets } from '../../../src/io/triplets/triplets-parquet.ts';
import { parseTripletsJsonl } from '../../../src/io/triplets/triplets-jsonl.ts';
import { TripletFormatError, parseTriplets, rowNegatives, type Triplet } from '../../../src/io/triplets/triplets.ts';
import { Random } from '../../../src/util/random.ts';
import { PARQUET_MUTATIONS, TEXT_MUTATIONS, mutate, type Mutation } from '../../helpers/fuzz-mutations.ts';
import { generatedBeir, generatedTriplets } from '../../helpers/generated-data.ts';
import { parquetBytes, tripletColumns, tripletTable } from '../../helpers/parquet-fixtures.ts';
import { PROMPTLY_MS } from '../../helpers/promptly.ts';

const CASES = 200;

/** A case's time bound: generous for two slow shared cores; a hang or a gigabyte allocation is far beyond it. */
const CASE_MS = PROMPTLY_MS;

/** How far the process's peak memory may grow over one reader's cases. */
const PEAK_GROWTH_MB = 300;

interface FuzzedReader {
  seed: number;
  /** The name of the file read, as messages must show it. */
  file: () => string;
  inputs: () => Uint8Array[] | Promise<Uint8Array[]>;
  mutations: Record<string, Mutation>;
  /** Reads the bytes as a file named `file`, resolving to what the reader returns. */
  read: (bytes: Uint8Array, file: string) => Promise<unknown>;
  /** The error types the reader throws on purpose (matched exactly: a TypeError is not an Error here). */
  errors: (abstract new (...args: never[]) => Error)[];
  /** Checks a returned value is well formed and no bigger than the input allows. */
  check: (result: unknown, bytes: Uint8Array) => void;
}

const isText = (value: unknown) => typeof value === 'string' && value.trim() !== '';

function checkTriplets(rows: Triplet[], most: number): void {
  expect(rows.length).toBeGreaterThan(0);
  let characters = 0;
  for (const row of rows) {
    const texts = [row.query, row.positive, ...rowNegatives(row)];
    expect(texts.every(isText)).toBe(true);
    characters += texts.reduce((sum, t) => sum + t.length, 0);
  }
  expect(characters).toBeLessThanOrEqual(most);
}

const textTriplets = (rows: unknown, bytes: Uint8Array) => checkTriplets(rows as Triplet[], bytes.length);

/** A streamed index's rows, read back. */
async function indexedRows(bytes: Uint8Array, file: string, format: 'tsv' | 'jsonl'): Promise<Triplet[]> {
  const { source } = await indexTripletFile(memoryFile(bytes, file), format, { chunkBytes: 97 });
  return source.read([...Array(source.count).keys()]);
}

const parquetInputs = () => {
  const repeated = tripletColumns(12, 2);
  repeated[0] = { ...repeated[0], data: Array.from({ length: 12 }, (_, i) => `query ${i % 3}`) };
  repeated[1] = { ...repeated[1], nullable: true };
  return [tripletTable(6), tripletTable(9, { codec: 'UNCOMPRESSED', rowGroupSize: 4 }), parquetBytes(repeated)];
};

let runFolder: string;
beforeAll(async () => (runFolder = await mkdtemp(join(tmpdir(), 'splade-fuzz-runs-'))));
afterAll(() => rm(runFolder, { recursive: true, force: true }));

/** A run record as `train` starts one, as bytes. */
async function runRecordBytes(): Promise<Uint8Array> {
  let saved: RunRecord | null = null;
  const store = { get: async () => null, put: async (r: RunRecord) => void (saved = r) };
  const model = { name: 'tiny', key: 'tiny-key', architecture: 'BertForMaskedLM', meanRowNorm: 1.5, rowNorms: null };
  const watcher = new AlarmWatcher({ batchSize: 8, vocabSize: 100, totalSteps: 8 }, new Set<string>());
  const recorder = new RunRecorder(store, { id: 'run', model, data: { name: 't.tsv', triplets: 100, crc32: 12345 } }, watcher);
  await recorder.onEvent({
    kind: 'start',
    startStep: 0,
    resumedFrom: null,
    recipe: paperRecipe(8),
    k: 8,
    seed: 1,
    provenance: 'fuzz',
  });
  return new TextEncoder().encode(JSON.stringify(saved, null, 1));
}

const fileBytes = (path: string) => new Uint8Array(readFileSync(path));

/** A triplets reader's entry: text mutations, the triplet format's errors, its rows checked as text triplets. */
const tripletsReader = (seed: number, file: string, input: () => Uint8Array, read: FuzzedReader['read']): FuzzedReader => ({
  seed,
  file: () => file,
  inputs: () => [input()],
  mutations: TEXT_MUTATIONS,
  read,
  errors: [TripletFormatError, TextDecodeError, Error],
  check: textTriplets,
});

const readers: Record<string, FuzzedReader> = {
  'triplets TSV (whole file)': tripletsReader(
    3301,
    'fuzz/triplets.tsv',
    () => fileBytes(generatedTriplets()),
    async (bytes, file) => parseTriplets(bytes, file).triplets,
  ),
  'triplets TSV (streamed index)': tripletsReader(
    3302,
    'fuzz/triplets.tsv',
    () => fileBytes(generatedTriplets()),
    (bytes, file) => indexedRows(bytes, file, 'tsv'),
  ),
  'triplets JSONL (whole file)': tripletsReader(
    3303,
    'fuzz/triplets.jsonl',
    () => jsonlTriplets(),
    async (bytes, file) => parseTripletsJsonl(bytes, file).triplets,
  ),
  'triplets JSONL (streamed index)': tripletsReader(
    3304,
    'fuzz/triplets.jsonl',
    () => jsonlTriplets(),
    (bytes, file) => indexedRows(bytes, file, 'jsonl'),
  ),
  'triplets Parquet': {
    seed: 3305,
    file: () => 'fuzz/train-00000-of-00001.parquet',
    inputs: parquetInputs,
    mutations: PARQUET_MUTATIONS,
    read: (bytes, file) => readParquetTriplets(memoryFile(bytes, file)),
    errors: [ParquetFormatError],
    check: (rows, bytes) => {
      checkTriplets(rows as Triplet[], Infinity);
      expect((rows as Triplet[]).length).toBeLessThanOrEqual(256 * bytes.length);
    },
  },
  'BEIR corpus': {
    seed: 3306,
    file: () => 'fuzz/corpus.jsonl',
    inputs: () => [fileBytes(join(generatedBeir(), 'corpus.jsonl'))],
    mutations: TEXT_MUTATIONS,
    read: async (bytes, file) => parseBeirJsonl(bytes, file).records,
    errors: [TextDecodeError, Error],
    check: (records, bytes) => {
      for (const r of records as { id: unknown; text: unknown }[])
        expect(typeof r.id === 'string' && typeof r.text === 'string').toBe(true);
      expect((records as unknown[]).length).toBeLessThanOrEqual(bytes.length);
    },
  },
  'BEIR qrels': {
    seed: 3307,
    file: () => 'fuzz/qrels/test.tsv',
    inputs: () => [fileBytes(join(generatedBeir(), 'qrels', 'test.tsv'))],
    mutations: TEXT_MUTATIONS,
    read: async (bytes, file) => parseBeirQrels(bytes, file).qrels,
    errors: [TextDecodeError, Error],
    check: (qrels) => {
      for (const judged of (qrels as Map<string, Map<string, number>>).values())
        for (const score of judged.values()) expect(Number.isInteger(score)).toBe(true);
    },
  },
  'run.json': {
    seed: 3308,
    file: () => join(runFolder, 'run.json'),
    inputs: async () => [await runRecordBytes()],
    mutations: TEXT_MUTATIONS,
    read: async (bytes) => {
      await writeFile(join(runFolder, 'run.json'), bytes);
      return createFolderRunStore().get(runFolder);
    },
    errors: [Error, StoredRecordError],
    check: () => {},
  },
};

/** The generated TSV's rows as JSON Lines, half with "anchor", one with a "negatives" list. */
function jsonlTriplets(): Uint8Array {
  const rows = parseTriplets(fileBytes(generatedTriplets()), 'triplets.tsv').triplets;
  const lines = rows.map((t, i) =>
    JSON.stringify(
      i === 3
        ? { query: t.query, positive: t.positive, negatives: [t.negative] }
        : { [i % 2 ? 'anchor' : 'query']: t.query, positive: t.positive, negative: t.negative, id: i },
    ),
  );
  return new TextEncoder().encode(lines.join('\n') + '\n');
}

async function outcome(read: () => Promise<unknown>): Promise<{ error: unknown } | { value: unknown }> {
  try {
    return { value: await read() };
  } catch (error) {
    return { error };
  }
}

/** Runs a reader's cases: each ends in time, in one of its error types naming the file, or in a value `check` takes. */
async function fuzz(name: string, check: FuzzedReader['check']): Promise<void> {
  const reader = readers[name];
  const inputs = await reader.inputs();
  for (const input of inputs) check(await reader.read(input, reader.file()), input);
  const file = reader.file();
  const random = new Random(reader.seed);
  const peakBefore = process.resourceUsage().maxRSS;
  let refused = 0;
  for (let c = 0; c < CASES; c++) {
    const { bytes, applied } = mutate(inputs[random.int(inputs.length)], reader.mutations, random);
    const label = `${name}, seed ${reader.seed}, case ${c} (${applied.join(', ')})`;
    const started = performance.now();
    const result = await outcome(() => reader.read(bytes, file));
    expect(performance.now() - started, label).toBeLessThan(CASE_MS);
    if ('value' in result) {
      try {
        check(result.value, bytes);
      } catch (error) {
        throw new Error(`${label}: ${(error as Error).message}`, { cause: error });
      }
      continue;
    }
    refused++;
    const error = result.error as Error;
    const kind = `${label}: ${error?.constructor?.name}: ${String(error?.message).slice(0, 300)}`;
    expect(
      reader.errors.some((type) => error?.constructor === type),
      kind,
    ).toBe(true);
    expect(error.message.includes(file), kind).toBe(true);
  }
  expect(refused).toBeGreaterThan(CASES / 10);
  expect((process.resourceUsage().maxRSS - peakBefore) / 1024, `${name}: peak memory growth (MB)`).toBeLessThan(PEAK_GROWTH_MB);
}

describe.each(Object.keys(readers))('fuzzing the %s reader', (name) => {
  it(`ends ${CASES} seeded mutations in its own error naming the file, or well-formed rows, in bounded time and memory`, () =>
    fuzz(name, readers[name].check));
});

// What the store returns is a run record: it checks what it reads (contract/experiments/stored-records.ts).
it('fuzzing run.json: what the store returns is a run record', () =>
  fuzz('run.json', (record) => {
    const r = record as Partial<Record<keyof RunRecord, unknown>>;
    const numbers = [r.k, r.seed, r.step, r.trainingMs].every((n) => typeof n === 'number' && Number.isFinite(n));
    expect(numbers && typeof r.id === 'string' && Array.isArray(r.reports) && Array.isArray(r.evaluations)).toBe(true);
  }));

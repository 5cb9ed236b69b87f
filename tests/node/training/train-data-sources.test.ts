// Training rows read on demand: the streaming index of TSV and JSONL files gives the rows, the CRC-32, the blank
// lines and the header of the whole-file parsers at any chunk size (lines across chunk boundaries, a BOM, CRLF, no
// final newline), names the line of a bad row or byte, and keeps only its index in memory; Parquet tables (several
// negatives) and Hub dataset ids (the split's Parquet files, through a local server in the Hub's layout) train
// through the CLI.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTrainingData, readTrainingFile } from '../../../src/app/training/training-data.ts';
import { memoryFile } from '../../../src/io/random-access.ts';
import { indexTripletFile } from '../../../src/io/triplets/triplet-index.ts';
import { parseTriplets } from '../../../src/io/triplets/triplets.ts';
import { runCliWith } from '../../helpers/cli.ts';
import { startHubServer, type HubServer } from '../../helpers/hub-server.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const encode = (text: string) => new TextEncoder().encode(text);

const all = (n: number) => [...Array(n).keys()];

let hub: HubServer;
const workspace = tinyCliWorkspace('splade-sources-');
beforeAll(async () => {
  const dataset = join(workspace.root, 'hub', 'datasets', 'someone', 'triplets', 'triplet');
  await mkdir(dataset, { recursive: true });
  const shard = (queries: string[]) =>
    new Uint8Array(
      parquetWriteBuffer({
        columnData: [
          { name: 'query', data: queries, type: 'STRING' },
          { name: 'positive', data: queries.map((q) => `the ${q} study`), type: 'STRING' },
          { name: 'negative', data: queries.map(() => 'the sun and the moon'), type: 'STRING' },
        ],
      }),
    );
  await writeFile(join(dataset, 'train-00000-of-00002.parquet'), shard(['cat', 'dog', 'gene']));
  await writeFile(join(dataset, 'train-00001-of-00002.parquet'), shard(['brain', 'heart']));
  await writeFile(join(dataset, 'test-00000-of-00001.parquet'), shard(['never']));
  hub = await startHubServer(join(workspace.root, 'hub'));
});
afterAll(async () => {
  await hub.close();
  await rm(workspace.root, { recursive: true, force: true });
});

describe('the streaming triplet index', () => {
  it.each([7, 64, 4 * 2 ** 20])(
    'reads the MS MARCO toy triplets as the whole-file parser does (chunks of %i bytes)',
    async (chunkBytes) => {
      const path = generatedTriplets();
      const bytes = new Uint8Array(await readFile(path));
      const whole = readTrainingData(bytes, path);
      const indexed = await indexTripletFile(memoryFile(bytes, path), 'tsv', { chunkBytes });
      expect(indexed.crc32).toBe(whole.data.fingerprint.crc32);
      expect(indexed.source.count).toBe(100);
      expect(await indexed.source.read(all(100))).toEqual(parseTriplets(bytes, path).triplets);
      expect(await indexed.source.read([99, 0, 42])).toEqual(await whole.data.source.read([99, 0, 42]));
      expect(indexed.source.indexBytes).toBe(100 * 20); // offset, length, line number and CRC-32 per row
    },
  );

  it.each([
    ['tsv', '\uFEFFquery\tpositive\tnegative\r\nq1\tp1\tn1\r\n\r\nq2\tp 2\tn2\n\nq3\tp3\tn3'],
    [
      'jsonl',
      '\uFEFF{"query":"q1","positive":"p1","negatives":["n1","m1"]}\r\n\n{"anchor":"q2","positive":"p2","negative_1":"n2","negative_2":"m2"}',
    ],
  ] as const)('%s: a BOM, CRLF, blank lines, a header and no final newline, at every chunk size', async (format, text) => {
    const bytes = encode(text);
    const whole = readTrainingData(bytes, `x.${format}`);
    const rows = whole.data.source.count;
    expect(rows).toBe(format === 'tsv' ? 3 : 2);
    for (const chunkBytes of [1, 2, 5, 1000]) {
      const indexed = await indexTripletFile(memoryFile(bytes, `x.${format}`), format, { chunkBytes });
      expect([indexed.blankLines, indexed.header, indexed.crc32, indexed.source.negatives]).toEqual([
        whole.summary.blankLines,
        whole.summary.header,
        whole.summary.crc32,
        whole.summary.negatives,
      ]);
      expect(await indexed.source.read(all(rows))).toEqual(await whole.data.source.read(all(rows)));
    }
  });

  it('names the line of a malformed row or a bad byte wherever the chunks fall; refuses UTF-16', async () => {
    const good = 'q\tp\tn\n'.repeat(30);
    for (const chunkBytes of [3, 16, 4096]) {
      await expect(
        indexTripletFile(memoryFile(encode(`${good}only two\tfields\n`), 'd.tsv'), 'tsv', { chunkBytes }),
      ).rejects.toThrow('d.tsv line 31: 2 tab-separated fields');
      const bad = new Uint8Array([...encode(good), 0x71, 0xff, 0x09, 0x70, 0x09, 0x6e, 0x0a]);
      await expect(indexTripletFile(memoryFile(bad, 'd.tsv'), 'tsv', { chunkBytes })).rejects.toThrow(
        `d.tsv:31: invalid UTF-8 (byte 0xFF at byte ${good.length + 1})`,
      );
    }
    await expect(indexTripletFile(memoryFile(new Uint8Array([0xff, 0xfe, 0x71, 0x00]), 'w.tsv'), 'tsv')).rejects.toThrow(
      'this file is UTF-16',
    );
  });
});

describe('Parquet and Hub datasets', () => {
  it('a Parquet table with negative_1 and negative_2 columns reads as rows of two negatives, and trains through the CLI', async () => {
    const path = join(workspace.root, 'two-negatives.parquet');
    const queries = ['cat on a mat', 'gene drug study', 'heart blood', 'sparse vector search'];
    await writeFile(
      path,
      new Uint8Array(
        parquetWriteBuffer({
          columnData: [
            { name: 'anchor', data: queries, type: 'STRING' },
            { name: 'positive', data: queries.map((q) => `the ${q}`), type: 'STRING' },
            { name: 'negative_2', data: queries.map(() => 'a song of the sea'), type: 'STRING' },
            { name: 'negative_1', data: queries.map(() => 'the dog ran in the forest'), type: 'STRING' },
          ],
        }),
      ),
    );
    const bytes = new Uint8Array(await readFile(path));
    const read = await readTrainingFile(memoryFile(bytes, path));
    expect(read.summary).toMatchObject({ format: 'parquet', triplets: 4, negatives: 2, streamed: false });
    expect((await read.data.source.read([1]))[0]).toEqual({
      query: 'gene drug study',
      positive: 'the gene drug study',
      negative: 'the dog ran in the forest',
      extraNegatives: ['a song of the sea'],
    });
    const run = await runCliWith(
      'train',
      {
        model: workspace.model,
        triplets: path,
        out: join(workspace.root, 'parquet-run'),
        steps: '1',
        batch: '2',
        'query-length': '8',
        'doc-length': '12',
        'probe-every': '0',
      },
      '--json',
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const start = JSON.parse(run.stdout.split('\n')[0]);
    expect(start.recipe.negatives).toBe(2);
    expect(start.triplets).toBe(4);
  });

  it("a Hub dataset id trains on its split's Parquet files, read through the tree API; a missing split is named", async () => {
    const env = { SPLADE_LAB_HUB_URL: hub.baseUrl, SPLADE_LAB_CACHE: join(workspace.root, 'cache') };
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      const run = await runCliWith('train', {
        model: workspace.model,
        triplets: 'someone/triplets',
        subset: 'triplet',
        out: join(workspace.root, 'hub-run'),
        steps: '1',
        batch: '2',
        'query-length': '8',
        'doc-length': '12',
        'probe-every': '0',
      });
      expect(run.stderr).toBe(
        `reading Hub dataset someone/triplets (subset "triplet", split "train") from ${hub.baseUrl}; there is no local path someone/triplets\n`,
      );
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        'on 5 triplets of someone/triplets/triplet:train (triplet/train-00000-of-00002.parquet, triplet/train-00001-of-00002.parquet)',
      );
      const missing = await runCliWith('train', {
        model: workspace.model,
        triplets: 'someone/triplets',
        subset: 'triplet',
        split: 'validation',
        out: join(workspace.root, 'hub-run-2'),
        steps: '1',
      });
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain('no Parquet files of split "validation"');
    } finally {
      for (const key of Object.keys(env))
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
    }
  });
});

// Data sets (SciFact itself is the real-data tier's: tests/data): corrupt BEIR folders, and NanoBEIR Parquet from a folder and from Hub URLs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBeir } from '../../../src/io/beir/beir.ts';
import { loadNanoBeir, nanoBeirHubSource } from '../../../src/io/beir/nanobeir.ts';
import { createFolderSource as folderSource } from '../../../src/io/file-source-node.ts';

const scratch = mkdtempSync(join(tmpdir(), 'splade-lab-retrieval-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes a BEIR folder under the scratch directory; `files` maps relative paths to contents. */
function beirFolder(name: string, files: Record<string, string | undefined>): string {
  const dir = join(scratch, name);
  for (const [path, content] of Object.entries(files)) {
    if (content === undefined) continue;
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const goodCorpus = '{"_id": "d1", "title": "Title one", "text": "first text"}\n{"_id": "d2", "text": "second"}\n';

const goodQueries = '{"_id": "q1", "text": "first query"}\n{"_id": "q2", "text": "unjudged query"}\n';

const goodQrels = 'query-id\tcorpus-id\tscore\nq1\td1\t1\n';

describe('BEIR folders', () => {
  it('keeps only judged queries and joins title and text with one space', async () => {
    const dataset = await loadBeir(
      folderSource(beirFolder('good', { 'corpus.jsonl': goodCorpus, 'queries.jsonl': goodQueries, 'qrels/test.tsv': goodQrels })),
    );
    expect(dataset.queryIds).toEqual(['q1']);
    expect(dataset.corpusTexts).toEqual(['Title one first text', 'second']);
  });

  it.each([
    {
      name: 'missing corpus',
      files: { 'queries.jsonl': goodQueries, 'qrels/test.tsv': goodQrels },
      error: /corpus\.jsonl not found; a BEIR folder holds/,
    },
    {
      name: 'missing split',
      files: { 'corpus.jsonl': goodCorpus, 'queries.jsonl': goodQueries, 'qrels/dev.tsv': goodQrels },
      error: /qrels\/test\.tsv not found/,
    },
    {
      name: 'bad JSON line',
      files: {
        'corpus.jsonl': goodCorpus + '{"_id": "d3", "text": \n',
        'queries.jsonl': goodQueries,
        'qrels/test.tsv': goodQrels,
      },
      error: /corpus\.jsonl:3: not valid JSON/,
    },
    {
      name: 'line without _id',
      files: { 'corpus.jsonl': goodCorpus, 'queries.jsonl': '{"text": "x"}\n', 'qrels/test.tsv': goodQrels },
      error: /queries\.jsonl:1: missing "_id"/,
    },
    {
      name: 'bad qrels score',
      files: { 'corpus.jsonl': goodCorpus, 'queries.jsonl': goodQueries, 'qrels/test.tsv': goodQrels + 'q1\td2\thigh\n' },
      error: /test\.tsv:3: score "high"/,
    },
    {
      name: 'qrels naming only unknown queries',
      files: { 'corpus.jsonl': goodCorpus, 'queries.jsonl': goodQueries, 'qrels/test.tsv': 'qX\td1\t1\n' },
      error: /no judged query is present/,
    },
    {
      name: 'empty corpus',
      files: { 'corpus.jsonl': '\n', 'queries.jsonl': goodQueries, 'qrels/test.tsv': goodQrels },
      error: /corpus is empty/,
    },
  ])('$name: a clear error', async ({ name, files, error }) => {
    await expect(loadBeir(folderSource(beirFolder(name.replaceAll(' ', '-'), files)))).rejects.toThrow(error);
  });

  it.each([
    {
      name: 'a non-numeric first row that is no header',
      qrels: 'q1\td1\thigh\nq1\td2\t1\n',
      error: /test\.tsv:1: score "high" is not an integer/,
    },
    {
      name: 'a header after the first row',
      qrels: 'q1\td1\t1\nquery-id\tcorpus-id\tscore\n',
      error: /test\.tsv:2: score "score" is not an integer/,
    },
    {
      name: 'a query id with a space',
      qrels: 'query-id\tcorpus-id\tscore\nq 1\td1\t1\n',
      error: /test\.tsv:2: query-id "q 1" contains white space, which would split a TREC run or qrels line/,
    },
    {
      name: 'a corpus id with spaces (a forged run line)',
      qrels: 'q1\td1 Q0 forged 1 99 run\t1\n',
      error: /test\.tsv:1: corpus-id "d1 Q0 forged 1 99 run" contains white space/,
    },
  ])('qrels with $name: a clear error', async ({ name, qrels, error }) => {
    const files = { 'corpus.jsonl': goodCorpus, 'queries.jsonl': goodQueries, 'qrels/test.tsv': qrels };
    await expect(loadBeir(folderSource(beirFolder(name.replaceAll(' ', '-'), files)))).rejects.toThrow(error);
  });

  it('skips a first row that names its columns, whatever its names, and no other', async () => {
    for (const header of ['query-id\tcorpus-id\tscore', 'qid\tdocid\trelevance', 'query_id\tdoc_id\tlabel']) {
      const files = { 'corpus.jsonl': goodCorpus, 'queries.jsonl': goodQueries, 'qrels/test.tsv': `\n${header}\nq1\td1\t1\n` };
      const dataset = await loadBeir(folderSource(beirFolder(`header-${header.slice(0, 3)}`, files)));
      expect(dataset.qrels).toEqual(new Map([['q1', new Map([['d1', 1]])]]));
    }
  });

  it('refuses corpus and query ids a TREC run could not hold', async () => {
    const corpus = '{"_id": "d1", "text": "a"}\n{"_id": "d 2", "text": "b"}\n';
    await expect(
      loadBeir(
        folderSource(
          beirFolder('spaced-doc', { 'corpus.jsonl': corpus, 'queries.jsonl': goodQueries, 'qrels/test.tsv': goodQrels }),
        ),
      ),
    ).rejects.toThrow(
      /corpus\.jsonl:2: _id "d 2" contains white space, which would split a TREC run or qrels line; remove the white space from the id/,
    );
    const queries = '{"_id": "", "text": "a"}\n';
    await expect(
      loadBeir(
        folderSource(
          beirFolder('empty-query', { 'corpus.jsonl': goodCorpus, 'queries.jsonl': queries, 'qrels/test.tsv': goodQrels }),
        ),
      ),
    ).rejects.toThrow(/queries\.jsonl:1: _id "" is empty/);
  });

  it('counts qrels naming unknown queries or documents as warnings', async () => {
    const qrels = goodQrels + 'qX\td1\t1\nqY\td2\t1\nq1\tdMissing\t1\n';
    const dataset = await loadBeir(
      folderSource(
        beirFolder('unknown-ids', { 'corpus.jsonl': goodCorpus, 'queries.jsonl': goodQueries, 'qrels/test.tsv': qrels }),
      ),
    );
    expect(dataset.queryIds).toEqual(['q1']);
    expect(dataset.warnings).toEqual([
      '2 judged query ids have no entry in the queries (dropped), e.g. "qX"',
      '1 qrels rows name documents absent from the corpus (kept as judged, never retrievable), e.g. "dMissing"',
    ]);
    expect(dataset.qrels.get('q1')!.has('dMissing')).toBe(true);
  });
});

describe('NanoBEIR parquet', () => {
  const tables = {
    'corpus/train-00000-of-00001.parquet': parquetWriteBuffer({
      columnData: [
        { name: '_id', data: ['d1', 'd2', 'd3'], type: 'STRING' },
        { name: 'text', data: ['cats purr', 'dogs bark', 'fish swim'], type: 'STRING' },
      ],
    }),
    'queries/train-00000-of-00001.parquet': parquetWriteBuffer({
      columnData: [
        { name: '_id', data: ['q1', 'q2'], type: 'STRING' },
        { name: 'text', data: ['which animal barks', 'purring'], type: 'STRING' },
      ],
    }),
    'qrels/train-00000-of-00001.parquet': parquetWriteBuffer({
      columnData: [
        { name: 'query-id', data: ['q1', 'q2'], type: 'STRING' },
        { name: 'corpus-id', data: ['d2', 'd1'], type: 'STRING' },
      ],
    }),
  };

  const check = (dataset: Awaited<ReturnType<typeof loadNanoBeir>>) => {
    expect(dataset.corpusIds).toEqual(['d1', 'd2', 'd3']);
    expect(dataset.corpusTexts[1]).toBe('dogs bark');
    expect(dataset.queryTexts).toEqual(['which animal barks', 'purring']);
    expect(dataset.qrels.get('q1')).toEqual(new Map([['d2', 1]]));
  };

  it('reads the three tables from a local folder', async () => {
    const dir = join(scratch, 'NanoToy');
    for (const [path, bytes] of Object.entries(tables)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), new Uint8Array(bytes));
    }
    check(await loadNanoBeir(folderSource(dir), 'NanoToy'));
  });

  it('reads them from Hub URLs through fetch (as the browser does)', async () => {
    const requested: string[] = [];
    const fakeFetch = (async (input: string | URL | Request) => {
      const url = String(input);
      requested.push(url);
      const prefix = 'https://huggingface.co/datasets/zeta-alpha-ai/NanoSciFact/resolve/main/';
      const bytes = url.startsWith(prefix) ? tables[url.slice(prefix.length) as keyof typeof tables] : undefined;
      return bytes ? new Response(bytes) : new Response('not found', { status: 404 });
    }) as typeof fetch;
    check(await loadNanoBeir(nanoBeirHubSource('SciFact', fakeFetch), 'NanoSciFact'));
    expect(requested.sort()).toEqual([
      'https://huggingface.co/datasets/zeta-alpha-ai/NanoSciFact/resolve/main/corpus/train-00000-of-00001.parquet',
      'https://huggingface.co/datasets/zeta-alpha-ai/NanoSciFact/resolve/main/qrels/train-00000-of-00001.parquet',
      'https://huggingface.co/datasets/zeta-alpha-ai/NanoSciFact/resolve/main/queries/train-00000-of-00001.parquet',
    ]);
    await expect(loadNanoBeir(nanoBeirHubSource('Nope', fakeFetch), 'NanoNope')).rejects.toThrow(
      /NanoNope\/resolve\/main\/corpus\/.* not found/,
    );
  });

  it('names the file when a table is not Parquet or lacks a column', async () => {
    const dir = join(scratch, 'NanoBroken');
    mkdirSync(join(dir, 'corpus'), { recursive: true });
    mkdirSync(join(dir, 'queries'), { recursive: true });
    mkdirSync(join(dir, 'qrels'), { recursive: true });
    writeFileSync(join(dir, 'corpus/train-00000-of-00001.parquet'), 'not parquet at all');
    writeFileSync(
      join(dir, 'queries/train-00000-of-00001.parquet'),
      new Uint8Array(tables['queries/train-00000-of-00001.parquet']),
    );
    writeFileSync(join(dir, 'qrels/train-00000-of-00001.parquet'), new Uint8Array(tables['corpus/train-00000-of-00001.parquet']));
    await expect(loadNanoBeir(folderSource(dir), 'x')).rejects.toThrow(
      /corpus\/train-00000-of-00001\.parquet: not a readable Parquet file/,
    );
    writeFileSync(
      join(dir, 'corpus/train-00000-of-00001.parquet'),
      new Uint8Array(tables['corpus/train-00000-of-00001.parquet']),
    );
    await expect(loadNanoBeir(folderSource(dir), 'x')).rejects.toThrow(
      /qrels\/train-00000-of-00001\.parquet: missing column\(s\) query-id, corpus-id/,
    );
  });
});

// `splade-lab mine` end to end on a generated BEIR folder of the tiny model's words: BM25 and the model's own sparse
// index (its negatives are eval's ranking without the positives), a mined file that train trains on, Parquet output read
// back by train's reader, include_positives, and bad input.
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseRun } from '../../../src/io/beir/trec.ts';
import { memoryFile } from '../../../src/io/random-access.ts';
import { readParquetTriplets } from '../../../src/io/triplets/triplets-parquet.ts';
import { parseTripletsJsonl } from '../../../src/io/triplets/triplets-jsonl.ts';
import { parseTriplets, rowNegatives } from '../../../src/io/triplets/triplets.ts';
import { runCli, runCliWith } from '../../helpers/cli.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';
import { TINY_BATCH_SHAPE } from '../../helpers/tiny-training-flags.ts';

const DOCS: [string, string][] = [
  ['d1', 'the cat sat on the mat'],
  ['d2', 'a dog ran fast on the road'],
  ['d3', 'the cat and the dog'],
  ['d4', 'a drug study of the gene'],
  ['d5', 'cancer cell protein and gene'],
  ['d6', 'the drug effect on blood'],
  ['d7', 'the river and the sea'],
  ['d8', 'sun moon and star light'],
  ['d9', 'the forest tree by the river'],
  ['d10', 'music and song in the city'],
  ['d11', 'a book of paper and data'],
  ['d12', 'sparse vector search and rank'],
];
const QUERIES: [string, string][] = [
  ['q1', 'cat mat'],
  ['q2', 'dog road'],
  ['q3', 'gene drug'],
  ['q4', 'sea river'],
  ['q5', 'star light'],
  ['q6', 'song city'],
  ['q7', 'vector search'],
  ['q8', 'blood heart'],
];
/** Positives: q3 has two. */
const QRELS: [string, string][] = [
  ['q1', 'd1'],
  ['q2', 'd2'],
  ['q3', 'd4'],
  ['q3', 'd5'],
  ['q4', 'd7'],
  ['q5', 'd8'],
  ['q6', 'd10'],
  ['q7', 'd12'],
  ['q8', 'd6'],
];

const workspace = tinyCliWorkspace('splade-mine-cli-');
const TEXT = new Map(DOCS);

/** A BEIR folder with these documents, the queries and qrels/train.tsv of these rows (extra lines appended). */
async function beirFolder(name: string, docs = DOCS, qrels = QRELS.map(([q, d]) => `${q}\t${d}\t1`)): Promise<string> {
  const dir = join(workspace.root, name);
  await mkdir(join(dir, 'qrels'), { recursive: true });
  await writeFile(
    join(dir, 'corpus.jsonl'),
    docs.map(([_id, text]) => JSON.stringify({ _id, title: '', text })).join('\n') + '\n',
  );
  await writeFile(join(dir, 'queries.jsonl'), QUERIES.map(([_id, text]) => JSON.stringify({ _id, text })).join('\n') + '\n');
  await writeFile(join(dir, 'qrels', 'train.tsv'), ['query-id\tcorpus-id\tscore', ...qrels].join('\n') + '\n');
  return dir;
}

let beir: string;
beforeAll(async () => {
  beir = await beirFolder('beir');
});

/** The positives' texts of a query text. */
function positivesOf(query: string): string[] {
  const id = QUERIES.find(([, text]) => text === query)![0];
  return QRELS.filter(([q]) => q === id).map(([, d]) => TEXT.get(d)!);
}

const out = (name: string) => join(workspace.root, name);
const at = (doc: string) => DOCS.findIndex(([id]) => id === doc);
const ENCODING = ['--query-length', '8', '--doc-length', '16'];

describe('splade-lab mine', () => {
  it('mines with BM25 into triplets train reads, never a positive, with the report as JSON', async () => {
    const path = out('bm25.tsv');
    const { code, stdout, stderr } = await runCliWith(
      'mine',
      { retriever: 'bm25', beir, out: path },
      '--num_negatives',
      '2',
      '--json',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    const { triplets } = parseTriplets(await readFile(path), path);
    expect(triplets.length).toBe(report.rows);
    for (const t of triplets) expect(positivesOf(t.query)).not.toContain(t.negative);
    // q3's two positives share its negatives: as many rows for each
    const q3 = triplets.filter((t) => t.query === 'gene drug');
    expect(q3.filter((t) => t.positive === TEXT.get('d4')).map((t) => t.negative)).toEqual(
      q3.filter((t) => t.positive === TEXT.get('d5')).map((t) => t.negative),
    );
    // a query whose words only its positive holds gets fewer, and the report says why
    expect(report.full + report.short).toBe(QUERIES.length);
    for (const q of report.shortQueries) expect(q.causes).toContain('retrieval');
    expect(report.rows).toBe(triplets.length);
  });

  it("mines with the model's own sparse index: its top negatives are eval's ranking without the positives", async () => {
    const path = out('model.jsonl');
    const mined = await runCliWith(
      'mine',
      { model: workspace.model, beir, out: path },
      ...ENCODING,
      '--output-format',
      'n-tuple',
      '--num_negatives',
      '2',
    );
    expect(mined.code, mined.stderr).toBe(0);
    expect(mined.stdout).toMatch(
      /^mined with the model's sparse index for 8 queries \(num_negatives 2, range_min 0, range_max 4, sampling top\): 9 rows \(n-tuple\) of at most 9\n/,
    );
    const runPath = out('eval.trec');
    const evaluated = await runCliWith(
      'eval',
      { model: workspace.model, beir, split: 'train', run: runPath },
      ...ENCODING,
      '--top-k',
      '12',
      '--json',
    );
    expect(evaluated.code, evaluated.stderr).toBe(0);
    const { run } = parseRun(await readFile(runPath, 'utf8'));
    const rows = parseTripletsJsonl(await readFile(path), path).triplets;
    for (const [id, query] of QUERIES) {
      // exact top-k's order: score, then corpus position
      const ranked = [...run.get(id)!].sort((a, b) => b[1] - a[1] || at(a[0]) - at(b[0])).map(([doc]) => TEXT.get(doc)!);
      const expected = ranked.filter((text) => !positivesOf(query).includes(text)).slice(0, 2);
      for (const row of rows.filter((r) => r.query === query)) expect(rowNegatives(row)).toEqual(expected);
    }
  });

  it('mines a file that train then trains on (mine -> train, contrastive)', async () => {
    const path = out('for-train.tsv');
    const mined = await runCliWith(
      'mine',
      { retriever: 'bm25', beir, out: path },
      '--num_negatives',
      '1',
      '--sampling_strategy',
      'random',
      '--range_max',
      '3',
    );
    expect(mined.code, mined.stderr).toBe(0);
    const again = out('again.tsv');
    await runCliWith(
      'mine',
      { retriever: 'bm25', beir, out: again },
      '--num_negatives',
      '1',
      '--sampling_strategy',
      'random',
      '--range_max',
      '3',
    );
    expect(await readFile(again, 'utf8')).toBe(await readFile(path, 'utf8'));
    const trained = await runCliWith(
      'train',
      { model: workspace.model, triplets: path, out: out('run') },
      ...TINY_BATCH_SHAPE,
      '--steps',
      '2',
      '--json',
    );
    expect(trained.code, trained.stderr).toBe(0);
    expect(
      trained.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).event),
    ).toContain('done');
  });
});

describe('splade-lab mine --out file.parquet', () => {
  it.each([
    ['triplet', []],
    ['n-tuple', ['--num_negatives', '1']],
  ])("writes %s rows that train's Parquet reader reads as the same rows as the JSONL", async (format, extra) => {
    const mineTo = (path: string) =>
      runCliWith('mine', { retriever: 'bm25', beir, out: path }, '--output_format', format, ...extra, '--json');
    const [jsonlPath, parquetPath] = [out(`same-${format}.jsonl`), out(`same-${format}.parquet`)];
    const jsonl = await mineTo(jsonlPath);
    const parquet = await mineTo(parquetPath);
    expect([jsonl.code, parquet.code], parquet.stderr).toEqual([0, 0]);
    const fromJsonl = parseTripletsJsonl(await readFile(jsonlPath), jsonlPath).triplets;
    const fromParquet = await readParquetTriplets(memoryFile(await readFile(parquetPath), parquetPath));
    expect(fromJsonl.length).toBe(JSON.parse(parquet.stdout).rows);
    expect(fromParquet).toEqual(fromJsonl);
  });
});

describe('splade-lab mine --include_positives', () => {
  it("keeps the positives in BM25's ranking, as n-tuples (sentence-transformers' format for it)", async () => {
    const path = out('rerank.jsonl');
    const { code, stdout, stderr } = await runCliWith(
      'mine',
      { retriever: 'bm25', beir, out: path },
      '--include_positives',
      '--num_negatives',
      '1',
    );
    expect(stderr).not.toContain('warning');
    expect(code).toBe(0);
    expect(stdout).toContain('sampling top, include_positives: positives kept among the candidates): ');
    expect(stdout).toContain('(n-tuple)');
    const rows = parseTripletsJsonl(await readFile(path), path).triplets;
    // each of these queries' words only its positive holds: BM25 ranks it first, and it is its own first "negative"
    for (const query of ['cat mat', 'star light', 'song city'])
      expect(rows.find((r) => r.query === query)!.negative).toBe(positivesOf(query)[0]);
    const without = out('no-positives.jsonl');
    await runCliWith('mine', { retriever: 'bm25', beir, out: without }, '--output_format', 'n-tuple', '--num_negatives', '1');
    for (const row of parseTripletsJsonl(await readFile(without), without).triplets)
      expect(positivesOf(row.query)).not.toContain(row.negative);
  });

  it('says which options set may still take a positive out', async () => {
    const { code, stderr } = await runCliWith(
      'mine',
      { retriever: 'bm25', beir, out: out('rerank-warned.jsonl') },
      '--include-positives',
      '--range_min',
      '1',
      '--sampling_strategy',
      'random',
      '--num_negatives',
      '1',
    );
    expect(code).toBe(0);
    expect(stderr).toContain(
      'warning: with --include_positives, --range_min, --sampling_strategy may still take positives out of the candidates\n',
    );
  });
});

describe('splade-lab mine on bad input', () => {
  it('skips and counts qrels naming unknown documents or queries, and a query with no positive', async () => {
    const odd = await beirFolder(
      'odd',
      DOCS,
      [...QRELS.map(([q, d]) => `${q}\t${d}\t1`), 'q1\td99\t1', 'q42\td1\t1', 'q8\td6\t0'].filter(
        (l) => !l.startsWith('q8\td6\t1'),
      ),
    );
    const { code, stdout, stderr } = await runCliWith('mine', { retriever: 'bm25', beir: odd, out: out('odd.tsv') }, '--json');
    expect(code).toBe(0);
    expect(stderr).toBe(
      'warning: 1 judged query ids are absent from the queries (or have no text), skipped: "q42"\n' +
        'warning: 1 positives name documents absent from the corpus (or with no text), skipped: "d99"\n' +
        'warning: 1 judged queries have no positive left (no judgment above 0, or none in the corpus), skipped: "q8"\n',
    );
    const report = JSON.parse(stdout);
    expect(report.queries).toBe(7);
    expect(report.notes.unknownDocuments).toEqual({ count: 1, examples: ['d99'] });
  });

  it('writes nothing from a corpus of one document, its only positive, and says why', async () => {
    const one = await beirFolder('one', [['d1', 'the cat sat on the mat']], ['q1\td1\t1']);
    const path = out('one.tsv');
    const { code, stderr } = await runCliWith('mine', { retriever: 'bm25', beir: one, out: path });
    expect(code).toBe(1);
    expect(stderr).toContain(`splade-lab mine: no query got a negative; nothing written to ${path}\n`);
    expect(stderr).toContain('0 queries got 3 negatives; 1 got fewer (1 none), because');
    expect(stderr).toContain('the corpus holds 1 document');
    expect(stderr).toContain('their positives were among the candidates (never a negative): 1 query, 1 candidate');
    await expect(access(path)).rejects.toThrow();
  });

  it.each([
    [['--sampling_strategy', 'best'], '--sampling_strategy must be one of top, random, got "best"'],
    [
      ['--output_format', 'n-tuple-scores'],
      '--output_format must be one of triplet, n-tuple, labeled-pair, labeled-list, got "n-tuple-scores"',
    ],
    [['--output_format', 'labeled-pair'], '--output_format labeled-pair is written as JSONL only'],
    [
      ['--output_format', 'triplet', '--include_positives'],
      '--output_format triplet with --include_positives: include_positives writes n-tuple rows only',
    ],
    [['--range-min', '1', '--range_min', '2'], 'give --range_min or --range-min, not both'],
    [['--range_max', '2'], '--range_max 2 - range_min 0 leaves a window of 2 candidates, fewer than num_negatives 3'],
    [['--num-negatives', '0'], '--num_negatives must be a whole number from 1 to 1000, got 0'],
    [['--model', 'x'], '--retriever bm25 uses no model'],
    [['--output_format', 'n-tuple', '--num_negatives', '6'], 'no query got all 6 negatives, which an n-tuple row needs'],
    [['--include_positives', '--num_negatives', '9'], '(lower --num_negatives)\n'],
  ])('refuses %j', async (extra, message) => {
    const { code, stderr } = await runCliWith('mine', { retriever: 'bm25', beir, out: out('refused.tsv') }, ...extra);
    expect(code).toBe(1);
    expect(stderr).toContain(message);
  });

  it.each(['labeled-list', 'labeled-pair'])('refuses %s as Parquet, naming why', async (format) => {
    const path = out('refused.parquet');
    const { code, stderr } = await runCliWith('mine', { retriever: 'bm25', beir, out: path }, '--output_format', format);
    expect(code).toBe(1);
    expect(stderr).toContain(`--output_format ${format} is written as JSONL only: `);
    expect(stderr).toContain("train's Parquet reader takes");
    await expect(access(path)).rejects.toThrow();
  });

  it('refuses the model retriever without a model, and pairs beside qrels', async () => {
    expect((await runCliWith('mine', { beir, out: out('x.tsv') })).stderr).toContain('--retriever model needs --model');
    const pairs = await runCli(
      'mine',
      '--retriever',
      'bm25',
      '--pairs',
      join(beir, 'corpus.jsonl'),
      '--qrels',
      'q.tsv',
      '--out',
      out('x.tsv'),
    );
    expect(pairs.stderr).toContain('give --pairs, or --queries and --qrels, not both');
  });
});

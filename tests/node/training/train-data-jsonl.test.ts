// JSONL training triplets: the MS MARCO toy triplets written as JSONL (query and anchor keys) read to the same
// triplets and fingerprint count as the TSV; the format is told by name or content; malformed lines, several
// rows with several negatives are read; the hand-off refuses a JSONL file; `train` trains on one, also
// in file order (--no-shuffle, kept in the recipe so that a resume must keep it).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTrainingData, tripletFormat } from '../../../src/app/training/training-data.ts';
import { parseTripletsJsonl } from '../../../src/io/triplets/triplets-jsonl.ts';
import { parseTriplets } from '../../../src/io/triplets/triplets.ts';
import { runCli, runCliWith } from '../../helpers/cli.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

const TSV = generatedTriplets();

const bytes = (text: string) => new TextEncoder().encode(text);

let root: string;

let jsonl: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-jsonl-'));
  const tsv = parseTriplets(await readFile(TSV), TSV);
  // half the lines with sentence-transformers' "anchor", half with "query", plus an ignored id
  const lines = tsv.triplets.map((t, i) =>
    JSON.stringify({ id: i, [i % 2 ? 'anchor' : 'query']: t.query, positive: t.positive, negative: t.negative }),
  );
  jsonl = join(root, 'triplets.jsonl');
  await writeFile(jsonl, lines.join('\n') + '\n');
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('JSONL triplets', () => {
  it('read to the same triplets as the TSV they were written from', async () => {
    const tsv = readTrainingData(new Uint8Array(await readFile(TSV)), TSV);
    const read = readTrainingData(new Uint8Array(await readFile(jsonl)), jsonl);
    expect(read.summary.format).toBe('jsonl');
    expect(tsv.summary.format).toBe('tsv');
    expect(await read.data.source.read([...Array(100).keys()])).toEqual(await tsv.data.source.read([...Array(100).keys()]));
    expect(read.data.fingerprint.triplets).toBe(100);
  });

  it('are told by name, then by content', () => {
    expect(tripletFormat(bytes('q\tp\tn\n'), 'a.jsonl')).toBe('jsonl');
    expect(tripletFormat(bytes('{"query":"q"}'), 'a.tsv')).toBe('tsv');
    expect(tripletFormat(bytes('\uFEFF  {"query":"q"}'), 'a.txt')).toBe('jsonl');
    expect(tripletFormat(bytes('q\tp\tn\n'), 'a.txt')).toBe('tsv');
    expect(tripletFormat(bytes(''), 'msmarco.parquet')).toBe('parquet');
    expect(tripletFormat(bytes('PAR1xxxx'), 'rows')).toBe('parquet');
  });

  it('name the file and line of a bad line, and read several negatives in order', () => {
    const cases: [string, string][] = [
      ['{"query":"q","positive":"p","negative":"n"}\nnot json\n', 'x.jsonl line 2: not JSON'],
      ['["q","p","n"]\n', 'x.jsonl line 1: a line must be one JSON object'],
      ['{"query":"q","positive":"p"}\n', 'x.jsonl line 1: "negative" must be a string, got nothing'],
      ['{"query":"q","positive":"  ","negative":"n"}\n', 'x.jsonl line 1: "positive" is empty'],
      ['{"query":"q","anchor":"a","positive":"p","negative":"n"}\n', 'give "query" or "anchor", not both'],
      [
        '{"anchor":"a","positive":"p","negatives":["n1","n2"]}\n{"anchor":"a","positive":"p","negative":"n"}\n',
        'x.jsonl line 2: 1 negative, but the first row has 2',
      ],
      ['{"anchor":"a","positive":"p","negatives":["n1",""]}\n', '"negatives"[1] is empty'],
      ['{"anchor":"a","positive":"p","negative":"n","negatives":["n1"]}\n', 'not both'],
      ['\n\n', 'x.jsonl: no triplets'],
    ];
    for (const [text, message] of cases) expect(() => parseTripletsJsonl(text, 'x.jsonl'), text).toThrow(message);
    expect(parseTripletsJsonl('{"query":"q","positive":"p","negative":"n"}\n\n', 'x.jsonl').blankLines).toBe(1);
    const several =
      '{"anchor":"a","positive":"p","negative_2":"n2","negative_10":"n10","negative_1":"n1"}\n{"anchor":"b","positive":"p","negatives":["x","y","z"]}\n';
    expect(parseTripletsJsonl(several, 'x.jsonl').triplets).toEqual([
      { query: 'a', positive: 'p', negative: 'n1', extraNegatives: ['n2', 'n10'] },
      { query: 'b', positive: 'p', negative: 'x', extraNegatives: ['y', 'z'] },
    ]);
  });

  it("read teacher labels under sentence-transformers' names label, labels, score and scores, one per row", () => {
    for (const key of ['label', 'labels', 'score', 'scores']) {
      const text = `{"query":"q","positive":"p","negative":"n","${key}":[9.5,-1]}\n{"query":"r","positive":"p","negative":"n","${key}":2}\n`;
      expect(
        parseTripletsJsonl(text, 'x.jsonl').triplets.map((t) => t.label),
        key,
      ).toEqual([[9.5, -1], [2]]);
    }
    expect(() => parseTripletsJsonl('{"query":"q","positive":"p","negative":"n","score":1,"label":2}\n', 'x.jsonl')).toThrow(
      'x.jsonl line 1: give the teacher labels once: "label" and "score" are the same column',
    );
    expect(() => parseTripletsJsonl('{"query":"q","positive":"p","negative":"n","scores":"high"}\n', 'x.jsonl')).toThrow(
      'x.jsonl line 1: "scores" must be a finite number or a list of finite numbers',
    );
  });

  it('train on a JSONL file through the CLI (also in file order); the hand-off turns it into the TSV its project reads', async () => {
    const model = join(root, 'tiny');
    await writeTinySpladeModel(model);
    const trained = await runCliWith('train', {
      model,
      triplets: jsonl,
      out: join(root, 'run'),
      steps: '1',
      batch: '2',
      'query-length': '8',
      'doc-length': '16',
      'probe-every': '0',
    });
    expect(trained.stderr).toBe('');
    expect(trained.code).toBe(0);
    expect(trained.stdout).toContain('on 100 triplets of');
    // --no-shuffle: file order, kept in the recipe, so a resume without it is refused
    const ordered = join(root, 'ordered');
    const small = [
      '--model',
      model,
      '--triplets',
      jsonl,
      '--out',
      ordered,
      '--batch',
      '2',
      '--query-length',
      '8',
      '--doc-length',
      '16',
      '--probe-every',
      '0',
    ];
    const first = await runCli('train', ...small, '--steps', '1', '--no-shuffle');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('triplets in file order');
    expect(JSON.parse(await readFile(join(ordered, 'run.json'), 'utf8')).recipe.dataOrder).toBe('file');
    const shuffled = await runCli('train', ...small, '--steps', '1', '--resume');
    expect(shuffled.code).toBe(1);
    expect(shuffled.stderr).toContain('recipe.dataOrder: checkpoint "file", now none');
    const handoff = await runCliWith('handoff', {
      model,
      k: '2',
      triplets: jsonl,
      out: join(root, 'handoff'),
      batch: '2',
      steps: '1',
      'query-length': '8',
      'doc-length': '16',
    });
    expect(handoff.code, handoff.stderr).toBe(0);
    expect(handoff.stderr).toContain('is JSON Lines: its 100 rows go into the project as data/triplets.tsv');
    const tsv = await readFile(join(root, 'handoff', 'data', 'triplets.tsv'), 'utf8');
    const lines = tsv.trimEnd().split('\n');
    expect(lines[0]).toBe('query\tpositive\tnegative');
    expect(lines).toHaveLength(1 + 100);
  });
});

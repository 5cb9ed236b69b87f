// The hand-off takes the triplet files splade-lab itself writes and reads (issue 42, round 2's leftovers): the JSON
// Lines and Parquet files `train` reads, whose rows go into the project as the TSV its splade_data.py reads (the same
// rows and labels), and the data file of a project it wrote (today's code already took it: a regression test); a file
// the project cannot train on (two negatives a row, a tab inside a text, an INT64 query column) is refused naming the
// file and why, before the model is read or the GPU started. One GPU hand-off in all; the rest reads files.
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { beforeAll, describe, expect, it } from 'vitest';
import { handoffTriplets } from '../../../src/app/handoff/handoff-triplets.ts';
import { parseTriplets, type Triplet } from '../../../src/io/triplets/triplets.ts';
import { crc32 } from '../../../src/util/crc32.ts';
import { runCliWith } from '../../helpers/cli.ts';
import { TINY_WORDS } from '../../helpers/tiny-splade-model.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const HANDOFF = fileURLToPath(new URL('../../../src/app/handoff/', import.meta.url));
const PYTHON = spawnSync('python3', ['--version']).status === 0;

/** Rows of tiny-vocabulary words with a teacher margin each (one that only shortest round trips keep: 1e-7 parts). */
const ROWS: Triplet[] = Array.from({ length: 6 }, (_, i) => {
  const text = (seed: number, n: number) =>
    Array.from({ length: n }, (_, j) => TINY_WORDS[(seed * 7 + j * 3) % TINY_WORDS.length]).join(' ');
  return { query: text(i, 2), positive: text(i + 1, 5), negative: text(i + 2, 4), label: [10 - i + i * 1e-7] };
});
const tsvText = (rows: Triplet[]) =>
  [
    'query\tpositive\tnegative\tlabel',
    ...rows.map((r) => `${r.query}\t${r.positive}\t${r.negative}\t${JSON.stringify(r.label)}`),
  ].join('\n') + '\n';

const workspace = tinyCliWorkspace('splade-handoff-own-');
beforeAll(async () => {
  await writeFile(join(workspace.root, 'rows.tsv'), tsvText(ROWS));
  await writeFile(
    join(workspace.root, 'rows.jsonl'),
    ROWS.map((r) => JSON.stringify({ anchor: r.query, positive: r.positive, negative: r.negative, scores: r.label![0] })).join(
      '\n',
    ) + '\n',
  );
  const column = (name: string, data: string[]) => ({ name, data, type: 'STRING' as const });
  await writeFile(
    join(workspace.root, 'rows.parquet'),
    new Uint8Array(
      parquetWriteBuffer({
        columnData: [
          column(
            'query',
            ROWS.map((r) => r.query),
          ),
          column(
            'positive',
            ROWS.map((r) => r.positive),
          ),
          column(
            'negative',
            ROWS.map((r) => r.negative),
          ),
          { name: 'label', data: ROWS.map((r) => r.label![0]), type: 'DOUBLE' },
        ],
      }),
    ),
  );
});

/** `splade-lab handoff` of `triplets` into a new folder `out` under the test's folder, with a small recipe. */
const handoff = (triplets: string, out: string) =>
  runCliWith('handoff', {
    model: workspace.model,
    k: '4',
    triplets,
    out: join(workspace.root, out),
    batch: '2',
    'query-length': '8',
    'doc-length': '12',
    steps: '2',
    loss: 'marginmse',
  });

const readJson = async (path: string) => JSON.parse(await readFile(join(workspace.root, path), 'utf8'));

describe('splade-lab handoff takes the files splade-lab writes and reads', () => {
  let tsv: Buffer;
  beforeAll(async () => {
    const made = await handoff(join(workspace.root, 'rows.jsonl'), 'from-jsonl');
    expect(made.stderr).not.toMatch(/handoff:/);
    expect(made.code).toBe(0);
    expect(made.stderr).toContain(
      `note: ${join(workspace.root, 'rows.jsonl')} is JSON Lines: its 6 rows go into the project as data/rows.tsv, the TSV its splade_data.py reads`,
    );
    tsv = await readFile(join(workspace.root, 'from-jsonl', 'data', 'rows.tsv'));
  });

  it('a JSON Lines file: its rows and labels go into the project as TSV, which splade_data.py reads as the same rows', async () => {
    expect(parseTriplets(tsv, 'rows.tsv').triplets).toEqual(ROWS);
    const { data } = await readJson('from-jsonl/splade_lab.json');
    expect(data).toMatchObject({ file: 'rows.tsv', path: 'data/rows.tsv', triplets: 6, crc32: crc32(tsv) >>> 0 });
    if (!PYTHON) return;
    const code = 'import json, sys, splade_data as s\nprint(json.dumps(s.parse_rows(sys.stdin.buffer.read(), "rows.tsv")))';
    const run = spawnSync('python3', ['-B', '-c', code], { cwd: HANDOFF, input: tsv, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([ROWS.map((r) => [r.query, r.positive, r.negative]), ROWS.map((r) => r.label)]);
  });

  it('a Parquet file of the same rows: the same TSV, byte for byte', async () => {
    const read = await handoffTriplets(
      await readFile(join(workspace.root, 'rows.parquet')),
      join(workspace.root, 'rows.parquet'),
    );
    expect(read.convertedFrom).toBe('parquet');
    expect(Buffer.from(read.bytes)).toEqual(tsv);
  });

  it("the data file of a project it wrote, as it is (today's code already takes it)", async () => {
    const path = join(workspace.root, 'from-jsonl', 'data', 'rows.tsv');
    const read = await handoffTriplets(tsv, path);
    expect(read.convertedFrom).toBeUndefined();
    expect(read.bytes).toBe(tsv);
    expect(read.data.fingerprint).toEqual({ name: 'rows.tsv', triplets: 6, crc32: crc32(tsv) });
  });
});

describe('a file the project cannot train on is refused before the model is read', () => {
  it.each([
    [
      'two negatives a row',
      'two.tsv',
      ROWS.map((r) => `${r.query}\t${r.positive}\t${r.negative}\t${r.negative}`).join('\n'),
      'the hand-off takes one negative per row (its train.py and check_step1.py do); ROOT/two.tsv has 2 per row: keep the first negative of each row',
    ],
    [
      'a tab inside a text',
      'tab.jsonl',
      ROWS.map((r, i) => JSON.stringify({ query: i === 2 ? 'a\tb' : r.query, positive: r.positive, negative: r.negative })).join(
        '\n',
      ),
      "ROOT/tab.jsonl row 3: its query holds a tab or a line break, which the hand-off project's TSV cannot hold (JSON Lines rows are written as TSV): replace them with spaces",
    ],
  ])('%s', async (_, name, text, message) => {
    await writeFile(join(workspace.root, name), text + '\n');
    const { code, stderr } = await handoff(join(workspace.root, name), `refused-${name}`);
    expect(code).toBe(1);
    expect(stderr).toContain(`splade-lab handoff: ${message.replace('ROOT', workspace.root)}`);
    expect(stderr).not.toContain('computing');
  });

  it('an INT64 query column, naming the column and its type (refused, not read as text)', async () => {
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'query', data: [1n, 2n], type: 'INT64' },
        { name: 'positive', data: ['cat', 'dog'], type: 'STRING' },
        { name: 'negative', data: ['dog', 'cat'], type: 'STRING' },
      ],
    });
    await writeFile(join(workspace.root, 'ids.parquet'), new Uint8Array(bytes));
    const { code, stderr } = await handoff(join(workspace.root, 'ids.parquet'), 'refused-ids');
    expect(code).toBe(1);
    expect(stderr).toContain(
      `${join(workspace.root, 'ids.parquet')}: column "query": holds INT64 values, not text (a Parquet STRING): convert it to text before writing`,
    );
  });
});

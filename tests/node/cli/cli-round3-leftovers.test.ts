// Round 2's leftovers checked again (issue 42, item 10): a sweep plan whose k or lambda is a path is refused naming the
// field (a run folder is named by them), a --ks value that is a path is refused, a BM25 corpus that repeats an _id is
// refused naming both lines, and a CR-only TSV trains at --batch 1 on every row.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliWith } from '../../helpers/cli.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

let crOnly: string;
const workspace = tinyCliWorkspace('splade-round3-');
beforeAll(async () => {
  crOnly = join(workspace.root, 'old-mac.tsv');
  const rows = ['the cat\tthe cat sat\ta dog ran', 'the dog\ta dog ran\tthe cat sat', 'cell gene\tthe gene of a cell\tthe mat'];
  await writeFile(crOnly, rows.join('\r') + '\r');
});

const SMALL = ['--batch', '1', '--query-length', '8', '--doc-length', '16', '--steps', '1'];

/** `splade-lab train` or `sweep` of the tiny model on the CR-only triplets into `out`, at SMALL's sizes, then `extra`. */
const runOnTiny = (command: 'train' | 'sweep', out: string, ...extra: string[]) =>
  runCliWith(command, { model: workspace.model, triplets: crOnly, out }, ...SMALL, ...extra);

describe('a sweep plan', () => {
  const plan = (run: Record<string, unknown>) => ({
    id: 'x',
    createdAt: '2025-01-01T00:00:00.000Z',
    modelKey: 'x',
    data: { name: 'old-mac.tsv', triplets: 3, crc32: 1 },
    runs: [{ k: 1, batchSize: 1, queryLength: 8, documentLength: 16, ...run }],
    finished: [],
  });

  it.each([
    ['k', { k: '../../escaped' }, '"runs[0].k" is a string, expected a number'],
    ['lambdaQueries', { lambdaQueries: '../../escaped' }, '"runs[0].lambdaQueries" is a string, expected a number'],
  ])('whose %s is a path is refused naming the field, and nothing is made there', async (name, run, problem) => {
    const out = join(workspace.root, `sweep-${name}`, 'inner');
    await mkdir(out, { recursive: true });
    await writeFile(join(out, 'sweep.json'), JSON.stringify(plan(run)));
    const { code, stderr } = await runOnTiny('sweep', out, '--resume');
    expect(code).toBe(1);
    expect(stderr).toContain(`${join(out, 'sweep.json')}: ${problem}. The runs' folders beside it do not depend on it`);
    expect(await readdir(join(workspace.root, `sweep-${name}`))).toEqual(['inner']);
    expect(await readdir(out)).toEqual(['sweep.json']);
  });

  it('a --ks value that is a path is refused', async () => {
    const out = join(workspace.root, 'sweep-ks');
    const { code, stderr } = await runOnTiny('sweep', out, '--ks', '1,../x');
    expect(code).toBe(1);
    expect(stderr).toContain('k values are numbers separated by commas, got "1,../x"');
  });
});

describe('a BM25 corpus that repeats an _id', () => {
  it('is refused naming both lines', async () => {
    const beir = join(workspace.root, 'beir');
    await mkdir(join(beir, 'qrels'), { recursive: true });
    const corpus = ['{"_id": "d1", "text": "the cat sat"}', '{"_id": "d2", "text": "a dog"}', '{"_id": "d1", "text": "fish"}'];
    await writeFile(join(beir, 'corpus.jsonl'), corpus.join('\n') + '\n');
    await writeFile(join(beir, 'queries.jsonl'), '{"_id": "q1", "text": "cat"}\n');
    await writeFile(join(beir, 'qrels', 'test.tsv'), 'q1\td1\t1\n');
    const { code, stderr } = await runCli('bm25', '--beir', beir);
    expect(code).toBe(1);
    expect(stderr).toContain('corpus.jsonl:3: _id "d1" repeats the _id of line 1; ids must be unique');
  });
});

describe('a CR-only TSV at --batch 1', () => {
  it('trains on each of its rows, one per step', async () => {
    const out = join(workspace.root, 'cr-run');
    const { code, stdout, stderr } = await runOnTiny('train', out, '--steps', '3', '--probe-every', '0', '--json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const start = JSON.parse(stdout.split('\n')[0]);
    expect(start).toMatchObject({ event: 'start', triplets: 3, blankLines: 0, steps: 3 });
  });
});

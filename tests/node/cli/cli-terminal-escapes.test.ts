// Strings from files reach the terminal with their control characters escaped (issue 33, item 10): a run.json whose
// id sets the terminal's title and clears the screen is printed as text by `runs` (table and JSON), in an error
// message, and in a reader's warning.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printable } from '../../../src/util/printable.ts';
import { runCli } from '../../helpers/cli.ts';
import { runRecordFixture, writeRunJson } from '../../helpers/run-record.ts';

/** OSC 0 (set the title) ended by BEL, ED 2 (clear the screen), a C1 CSI and DEL. */
const HOSTILE = 'run\u001b]0;owned\u0007\u001b[2J\u009b31m\u007f';

/** Any control character but the line ends that separate output lines. */
const CONTROL_BUT_NEWLINE = /(?!\n)\p{Cc}/u;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-escapes-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const hostileEvaluation = (record: Record<string, any>) => {
  record.evaluations[0].set.name = `set${HOSTILE}`;
  return record;
};

describe('printable', () => {
  it('escapes C0, DEL and C1 as \\u00XX, keeps what it is told to keep and every other character', () => {
    expect(printable('a\u0000b\tc\nd\u001be\u007ff\u0080g\u009fh')).toBe(
      'a\\u0000b\\u0009c\\u000ad\\u001be\\u007ff\\u0080g\\u009fh',
    );
    expect(printable('line 1\nline\t2\r', '\n')).toBe('line 1\nline\\u00092\\u000d');
    expect(printable('café \u00a0 東京 🌊 \u200e')).toBe('café \u00a0 東京 🌊 \u200e');
    expect(JSON.parse(printable(JSON.stringify({ id: HOSTILE })))).toEqual({ id: HOSTILE }); // the same JSON
  });
});

describe('splade-lab runs', () => {
  it('prints a hostile run id and set name as text, in the table and as JSON', async () => {
    const folder = await writeRunJson(root, 'hostile', JSON.stringify(hostileEvaluation(runRecordFixture({ id: HOSTILE }))));
    const table = await runCli('runs', folder);
    expect(table.code).toBe(0);
    expect(table.stdout).not.toMatch(CONTROL_BUT_NEWLINE);
    expect(table.stdout).toContain('on setrun\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\u007f');
    expect(table.stdout).toContain('* run\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\u007f');
    const json = await runCli('runs', folder, '--json');
    expect(json.stdout).not.toMatch(CONTROL_BUT_NEWLINE);
    expect(JSON.parse(json.stdout).rows[0].run).toBe(HOSTILE);
  });

  it('escapes what an error message quotes from the file', async () => {
    const folder = await writeRunJson(
      root,
      'hostile-status',
      JSON.stringify(runRecordFixture({ status: `\u001b[2J${HOSTILE}` })),
    );
    const { code, stderr } = await runCli('runs', folder);
    expect(code).toBe(1);
    expect(stderr).not.toMatch(CONTROL_BUT_NEWLINE);
    expect(stderr).toContain(`${join(folder, 'run.json')}: "status" is "\\u001b[2Jrun\\u001b]0;owned`);
    expect(stderr).toContain('expected one of running, finished, paused, cancelled, failed');
  });
});

describe('a reader warning', () => {
  it('quotes a hostile id escaped (bm25 on a BEIR folder whose qrels name an absent document)', async () => {
    const beir = join(root, 'beir');
    await mkdir(join(beir, 'qrels'), { recursive: true });
    await writeFile(join(beir, 'corpus.jsonl'), '{"_id": "d1", "text": "the cat sat"}\n{"_id": "d2", "text": "the sea"}\n');
    await writeFile(join(beir, 'queries.jsonl'), '{"_id": "q1", "text": "cat"}\n');
    await writeFile(join(beir, 'qrels', 'test.tsv'), `q1\td1\t1\nq1\td\u001b]0;owned\u0007\t1\n`);
    const { code, stderr } = await runCli('bm25', '--beir', beir, '--json');
    expect(code).toBe(0);
    expect(stderr).not.toMatch(CONTROL_BUT_NEWLINE);
    expect(stderr).toContain('e.g. "d\\u001b]0;owned\\u0007"');
  });
});

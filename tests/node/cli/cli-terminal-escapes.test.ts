// Strings from files reach the terminal with their control characters escaped (issue 33, item 10): a run.json whose
// id sets the terminal's title and clears the screen is printed as text by `runs` (table and JSON), in an error
// message, and in a reader's warning. Bidirectional controls and line separators too (issue 42, item 8): an id with a
// line break cannot forge a "splade-lab ...: " line in an error message, and a vocabulary's tokens reach the terminal
// and `audit --out`'s TSV cells escaped, its JSON exact.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageLines } from '../../../src/cli/main.ts';
import { clip } from '../../../src/io/format-error.ts';
import { printable } from '../../../src/util/printable.ts';
import { runCli } from '../../helpers/cli.ts';
import { runRecordFixture, writeRunJson } from '../../helpers/run-record.ts';
import { TINY_VOCAB, writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

/** OSC 0 (set the title) ended by BEL, ED 2 (clear the screen), a C1 CSI and DEL. */
const HOSTILE = 'run\u001b]0;owned\u0007\u001b[2J\u009b31m\u007f';

/** Any control character but the line ends that separate output lines. */
const CONTROL_BUT_NEWLINE = /(?!\n)\p{Cc}/u;

/** RLO (reverses what follows), LRE, PDF, RLI, PDI, the line and paragraph separators, NEL. */
const BIDI_AND_SEPARATORS = '\u202e\u202a\u202c\u2067\u2069\u2028\u2029\u0085';

/** What no output may hold raw: a control character but the line end, a bidirectional control, a line separator. */
const UNPRINTABLE_BUT_NEWLINE = /(?!\n)[\p{Cc}\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;

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

  it('escapes the bidirectional embeddings, overrides and isolates and the line separators, and JSON stays the same', () => {
    expect(printable(`a${BIDI_AND_SEPARATORS}b`)).toBe('a\\u202e\\u202a\\u202c\\u2067\\u2069\\u2028\\u2029\\u0085b');
    for (const c of ['\u202b', '\u202d', '\u2066', '\u2068']) expect(printable(c)).toMatch(/^\\u20\w\w$/);
    expect(printable('\u200e\u200f\u061c')).toBe('\u200e\u200f\u061c'); // marks, not embeddings: they reorder nothing after them
    const id = `evil${BIDI_AND_SEPARATORS}id`;
    expect(JSON.parse(printable(JSON.stringify({ id })))).toEqual({ id });
  });

  it("clip escapes what it quotes, and an error message's later lines are indented", () => {
    expect(clip('d1\nsplade-lab bm25: forged\u202e')).toBe('d1\\u000asplade-lab bm25: forged\\u202e');
    expect(clip(`${'x'.repeat(10)}\u2028`, 4)).toBe('xxxx… (11 characters)');
    expect(messageLines('first\nsecond\n  listed\u001b')).toBe('first\n  second\n  listed\\u001b');
  });
});

describe('an id with a line break in an error message', () => {
  it('cannot stand as a line of its own (bm25 on a corpus whose _id holds a forged "splade-lab" line)', async () => {
    const beir = join(root, 'forged-id');
    await mkdir(join(beir, 'qrels'), { recursive: true });
    const forged = 'd1\nsplade-lab bm25: ok\u2028splade-lab bm25: fine\u202e';
    await writeFile(join(beir, 'corpus.jsonl'), `${JSON.stringify({ _id: forged, text: 'the cat' })}\n`);
    await writeFile(join(beir, 'queries.jsonl'), '{"_id": "q1", "text": "cat"}\n');
    await writeFile(join(beir, 'qrels', 'test.tsv'), 'q1\td1\t1\n');
    const { code, stderr } = await runCli('bm25', '--beir', beir);
    expect(code).toBe(1);
    expect(stderr).not.toMatch(UNPRINTABLE_BUT_NEWLINE);
    expect(stderr.split('\n').filter((line) => line.startsWith('splade-lab'))).toHaveLength(1);
    expect(stderr).toContain('_id "d1\\u000asplade-lab bm25: ok\\u2028splade-lab bm25: fine\\u202e" contains white space');
  });
});

describe('a vocabulary with bidirectional controls and line separators', () => {
  /** Three tokens of the tiny model made hostile: the model is dense, so every token is a term of every text. */
  const HOSTILE_TOKENS: Record<string, string> = { tree: 'tr\u202eee', moon: 'mo\u2028on', river: 'ri\u2067v\u0085er' };

  it("reaches the terminal and audit --out's TSV escaped, and --json exact", async () => {
    const model = join(root, 'hostile-vocab');
    await writeTinySpladeModel(model, 'bert');
    const vocab = TINY_VOCAB.map((token) => HOSTILE_TOKENS[token] ?? token);
    expect(vocab.filter((token) => Object.values(HOSTILE_TOKENS).includes(token))).toHaveLength(3);
    await writeFile(join(model, 'vocab.txt'), vocab.join('\n') + '\n');
    const corpus = join(root, 'hostile-corpus.jsonl');
    const texts = ['the cat sat', 'a dog ran', 'the\u202e gene\u2029 of a cell'];
    await writeFile(corpus, texts.map((text, i) => JSON.stringify({ _id: `d${i}\u202e`, text })).join('\n') + '\n');
    const tsv = join(root, 'hostile-audit.tsv');
    const common = ['--model', model, '--max-length', '16', '--top', '0'];
    const table = await runCli('audit', ...common, '--corpus', corpus, '--out', tsv);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).not.toMatch(UNPRINTABLE_BUT_NEWLINE);
    expect(table.stdout).toContain('tr\\u202eee');
    const written = await readFile(tsv, 'utf8');
    expect(written).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u2028\u2029\u0085]/);
    expect(written).toMatch(/^mo\\u2028on\t/m);
    expect(written).toMatch(/^ri\\u2067v\\u0085er\t/m);
    const json = await runCli('audit', ...common, '--corpus', corpus, '--json');
    expect(json.stdout).not.toMatch(UNPRINTABLE_BUT_NEWLINE);
    const terms = JSON.parse(json.stdout).widespreadTerms.map((t: { term: string }) => t.term);
    expect(terms).toEqual(expect.arrayContaining(Object.values(HOSTILE_TOKENS)));
    const each = await runCli('audit', ...common, '--in', corpus);
    expect(each.code, each.stderr).toBe(0);
    expect(each.stdout).not.toMatch(UNPRINTABLE_BUT_NEWLINE);
    expect(each.stdout).toContain('"the\\u202e gene\\u2029 of a cell"');
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

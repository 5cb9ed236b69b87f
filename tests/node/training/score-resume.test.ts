// `splade-lab score` stopped after K batches (as a kill leaves it: the progress file beside --out, no --out) and run
// again: it scores only the batches left and writes the bytes of an uninterrupted run; a progress file of another
// teacher or --batch is refused naming the file and the difference; a last line cut short is dropped.
import { existsSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseTripletsJsonl } from '../../../src/io/triplets/triplets-jsonl.ts';
import { runCliWith } from '../../helpers/cli.ts';
import { tempFolderPerFile } from '../../helpers/temp-folder.ts';
import { writeTinyCrossEncoder } from '../../helpers/tiny-cross-encoder.ts';

/** 6 rows of 3 pairs: 18 pairs, 5 batches of 4. */
const ROWS = [
  ['cat mat', 'the cat sat on the mat', 'a dog ran fast', 'the sea'],
  ['gene drug', 'a drug study of the gene', 'music and song', 'the cat and the dog and the river and the forest tree'],
  ['star', 'sun moon and star light', 'paper', 'a book of paper and data'],
  ['dog river', 'the dog swam in the river', 'a star', 'song of the sea and the moon'],
  ['book', 'a book of data', 'the gene', 'the mat and the cat'],
  ['forest tree', 'a tree in the forest', 'drug study', 'paper and music'],
];
const STOP = 'SPLADE_LAB_TEST_SCORE_STOP_AFTER_BATCHES';
const folder = tempFolderPerFile('splade-score-resume-');
const paths = { teacher: '', other: '', rows: '', straight: '' };

/** `score` with the test's teacher and rows, to `out`; stopped after `stopAfter` batches when given. */
async function score(out: string, stopAfter?: number, extra: Record<string, string> = {}, ...flags: string[]) {
  if (stopAfter !== undefined) process.env[STOP] = String(stopAfter);
  try {
    return await runCliWith('score', { teacher: paths.teacher, in: paths.rows, out, batch: '4', ...extra }, ...flags);
  } finally {
    delete process.env[STOP];
  }
}

const progressOf = (out: string) => `${out}.score-progress.jsonl`;
const progressLines = async (out: string) => (await readFile(progressOf(out), 'utf8')).trim().split('\n');

beforeAll(async () => {
  paths.teacher = join(folder.root, 'teacher');
  paths.other = join(folder.root, 'other-teacher');
  await writeTinyCrossEncoder(paths.teacher, { seed: 7 });
  await writeTinyCrossEncoder(paths.other, { seed: 8 });
  paths.rows = join(folder.root, 'rows.tsv');
  await writeFile(paths.rows, ['query\tpositive\tnegative_1\tnegative_2', ...ROWS.map((r) => r.join('\t'))].join('\n') + '\n');
  paths.straight = join(folder.root, 'straight.jsonl');
  const straight = await score(paths.straight);
  expect(straight.code, straight.stderr).toBe(0);
  expect(existsSync(progressOf(paths.straight))).toBe(false);
});

describe('splade-lab score resumes a stopped run', () => {
  it('stopped after 2 batches, then run again: only the rest is scored, the same bytes written', async () => {
    const out = join(folder.root, 'resumed.jsonl');
    const stopped = await score(out, 2);
    expect(stopped.code).not.toBe(0);
    expect(stopped.stderr).toMatch(/stopped after 2 batches/);
    expect(existsSync(out)).toBe(false);
    const [header, ...records] = await progressLines(out);
    expect(JSON.parse(header)).toMatchObject({ format: 'splade-lab score progress 1', batch: 4, maxLength: 512, pairs: 18 });
    expect(records).toHaveLength(2);
    // the recorded scores are the uninterrupted run's, to the last bit
    const straight = parseTripletsJsonl(await readFile(paths.straight), paths.straight).triplets.flatMap((t) => t.label!);
    for (const record of records) {
      const { pairs, scores } = JSON.parse(record) as { pairs: number[]; scores: number[] };
      pairs.forEach((pair, i) => expect(Object.is(scores[i], straight[pair])).toBe(true));
    }
    const resumed = await score(out);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resumed: 8 of 18 pairs already scored/);
    expect(resumed.stdout).toMatch(/scored 18 pairs of 6 rows .*\(8 of them taken from the progress file\)/);
    expect(await readFile(out)).toEqual(await readFile(paths.straight));
    expect(existsSync(progressOf(out))).toBe(false);
  });

  it('takes the recorded scores as they are: a batch in the file is not scored again', async () => {
    const out = join(folder.root, 'kept.jsonl');
    expect((await score(out, 1)).code).not.toBe(0);
    const [header, record] = await progressLines(out);
    const { pairs } = JSON.parse(record) as { pairs: number[] };
    const marked = pairs.map((_, i) => 1000 + i + 0.125);
    await writeFile(progressOf(out), `${header}\n${JSON.stringify({ pairs, scores: marked })}\n`);
    expect((await score(out)).code).toBe(0);
    const labels = parseTripletsJsonl(await readFile(out), out).triplets.flatMap((t) => t.label!);
    expect(pairs.map((pair) => labels[pair])).toEqual(marked);
  });

  it('drops a last line that a kill cut short, and still writes the same bytes', async () => {
    const out = join(folder.root, 'torn.jsonl');
    expect((await score(out, 3)).code).not.toBe(0);
    await appendFile(progressOf(out), '{"pairs":[3,7,1');
    const resumed = await score(out);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resumed: 12 of 18 pairs already scored .*its last line, cut short, was dropped/);
    expect(await readFile(out)).toEqual(await readFile(paths.straight));
  });

  it('refuses the progress file of another teacher or --batch, naming it and the difference, until --restart', async () => {
    const out = join(folder.root, 'other.jsonl');
    expect((await score(out, 1)).code).not.toBe(0);
    const progress = progressOf(out);
    const teacher = await score(out, undefined, { teacher: paths.other });
    expect(teacher.code).not.toBe(0);
    expect(teacher.stderr).toContain(progress);
    expect(teacher.stderr).toMatch(/the teacher: .*teacher \(SHA-256 \w+…\) then, .*other-teacher \(SHA-256 \w+…\) now/);
    expect(teacher.stderr).toMatch(/--restart to delete it/);
    const batch = await score(out, undefined, { batch: '3' });
    expect(batch.code).not.toBe(0);
    expect(batch.stderr).toMatch(/--batch: 4 then, 3 now/);
    expect(batch.stderr).not.toMatch(/the teacher:/);
    expect(existsSync(out)).toBe(false);
    expect(await progressLines(out)).toHaveLength(2);
    const restarted = await score(out, undefined, { batch: '3' }, '--restart');
    expect(restarted.code, restarted.stderr).toBe(0);
    expect(restarted.stderr).not.toMatch(/resumed/);
    expect(existsSync(progress)).toBe(false);
  });
});

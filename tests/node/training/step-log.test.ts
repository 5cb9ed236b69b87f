// The --log file of train and mlm (issue 42, item 3): each line names its run first, and a resumed run cuts back only
// its own lines after its checkpoint (and one of its own that a kill cut short); a user's notes, another run's lines
// and lines of older versions without a run stay byte for byte, and a line is never glued to a note left without a
// line break.
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logCutLine, openStepLog } from '../../../src/cli/training/step-log.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-step-log-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const RUN = '/runs/this one';
const OTHER = '/runs/another';
const line = (run: string, step: number) => JSON.stringify({ run, event: 'step', step, loss: step / 10 });

describe('the --log file', () => {
  it("writes each line with its run first, and a resume cuts back only this run's later lines", async () => {
    const path = join(root, 'shared.jsonl');
    const note = '# my notes: lr 1e-4 looked better; ünïcode and a stray \r';
    const legacy = JSON.stringify({ event: 'step', step: 9 }); // an older splade-lab's line: whose it is, nobody knows
    const before = [
      note,
      line(RUN, 1),
      line(OTHER, 1),
      line(RUN, 2),
      line(OTHER, 2),
      line(RUN, 3),
      legacy,
      '',
      line(OTHER, 3),
      line(RUN, 4),
      line(RUN, 3).slice(0, 25), // cut short by the kill: starts as every line of this run
    ];
    const notUtf8 = Buffer.from([0xff, 0x0a]); // a line of a byte that is not UTF-8: kept as that byte
    await writeFile(path, Buffer.concat([notUtf8, Buffer.from(before.join('\n'))]));
    const log = await openStepLog(path, RUN);
    await expect(log.cutBackTo(2)).resolves.toEqual({ dropped: 3, others: 6 });
    log.append({ step: 3 });
    await log.settled();
    const expected = [note, line(RUN, 1), line(OTHER, 1), line(RUN, 2), line(OTHER, 2), legacy, '', line(OTHER, 3)];
    const after = await readFile(path);
    const appended = `{"run":${JSON.stringify(RUN)},"step":3}\n`;
    expect(after.subarray(after.length - appended.length).toString()).toBe(appended);
    expect(after.subarray(0, after.length - appended.length)).toEqual(
      Buffer.concat([notUtf8, Buffer.from(expected.join('\n') + '\n')]),
    );
  });

  it('leaves a log without lines of this run untouched, and says what it kept', async () => {
    const path = join(root, 'foreign.jsonl');
    const text = `${line(OTHER, 5)}\n${line(OTHER, 6)}\nnotes\n`;
    await writeFile(path, text);
    const log = await openStepLog(path, RUN);
    await expect(log.cutBackTo(1)).resolves.toEqual({ dropped: 0, others: 3 });
    await log.settled();
    expect(await readFile(path, 'utf8')).toBe(text);
    expect(logCutLine('l.jsonl', 4, { dropped: 2, others: 1 })).toBe(
      '  --log l.jsonl: 2 lines after step 4 removed (those steps are trained again); 1 line of other runs or notes kept as they were',
    );
  });

  it('starts its first line on a line of its own after a note typed without a line break', async () => {
    const path = join(root, 'note.jsonl');
    await writeFile(path, 'a note without a line break');
    const log = await openStepLog(path, RUN);
    log.append({ step: 1 });
    log.append({ step: 2 });
    await log.settled();
    expect((await readFile(path, 'utf8')).split('\n')).toEqual([
      'a note without a line break',
      `{"run":${JSON.stringify(RUN)},"step":1}`,
      `{"run":${JSON.stringify(RUN)},"step":2}`,
      '',
    ]);
  });

  it('carries over a line another process appends while a resume rewrites the log', async () => {
    const path = join(root, 'busy.jsonl');
    await writeFile(path, [line(RUN, 1), line(OTHER, 1), line(RUN, 2), ''].join('\n'));
    // another run appends (open, write, close, as appendFile and a shell's >> do) after this log was read
    const late = line(OTHER, 2) + '\n';
    const log = await openStepLog(path, RUN, { afterRead: () => appendFile(path, late) });
    await expect(log.cutBackTo(1)).resolves.toEqual({ dropped: 1, others: 1 });
    await log.settled();
    expect(await readFile(path, 'utf8')).toBe([line(RUN, 1), line(OTHER, 1), ''].join('\n') + late);
  });
});

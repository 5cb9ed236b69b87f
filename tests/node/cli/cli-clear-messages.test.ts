// Messages a user can act on (issue 33, item 17): an output path that cannot be written is refused before the work
// (eval --run, encode --out, bm25 --run, lesson --trace, train --log), an unreadable input names its option, run.json
// that is empty or of the wrong shape names the file and the field, 1e400 is said as what it is, and a lesson trace
// whose ks are objects gets the trace's own error instead of a TypeError.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LessonTraceError, parseLessonTrace } from '../../../src/contract/lesson/lesson-trace.ts';
import { parseTripletsJsonl } from '../../../src/io/triplets/triplets-jsonl.ts';
import { runCli, runCliWith } from '../../helpers/cli.ts';
import { runRecordFixture, writeRunJson } from '../../helpers/run-record.ts';
import { generatedBeir, generatedTriplets } from '../../helpers/generated-data.ts';
import { writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const workspace = tinyCliWorkspace('splade-messages-');

describe('output paths are checked before the work', () => {
  const missing = () => join(workspace.root, 'no-such-folder', 'out.txt');
  it.each([
    ['eval --run', () => ['eval', '--model', workspace.model, '--beir', generatedBeir(), '--run', missing()]],
    [
      'encode --out',
      () => ['encode', '--model', workspace.model, '--in', join(generatedBeir(), 'corpus.jsonl'), '--out', missing()],
    ],
    ['bm25 --run', () => ['bm25', '--beir', generatedBeir(), '--run', missing()]],
    ['lesson --trace', () => ['lesson', '--model', workspace.model, '--steps', '2', '--trace', missing()]],
  ])('%s into a missing folder fails at once, naming the option and the folder', async (_, args) => {
    const { code, stdout, stderr } = await runCli(...args());
    expect(code).toBe(1);
    expect(stderr).toMatch(
      new RegExp(
        `^splade-lab \\w+: --\\w+ \\S+out\\.txt: the folder \\S+no-such-folder does not exist; create it first, or write elsewhere\\n$`,
      ),
    );
    expect(stdout).toBe(''); // nothing was evaluated, encoded or played
  });

  it('a folder given as the file is refused at once', async () => {
    const encode = await runCliWith('encode', {
      model: workspace.model,
      in: join(generatedBeir(), 'queries.jsonl'),
      out: workspace.root,
    });
    expect(encode.stderr).toBe(
      `splade-lab encode: --out ${workspace.root} is a folder; give the path of a file (new or to replace)\n`,
    );
    const bm25 = await runCli('bm25', '--beir', generatedBeir(), '--run', workspace.root);
    expect(bm25.stderr).toBe(
      `splade-lab bm25: --run ${workspace.root} is a folder; give the path of a file (new or to replace)\n`,
    );
  });

  it('train --log into a missing folder fails before the run folder is made', async () => {
    const out = join(workspace.root, 'never-trained');
    const log = missing();
    const args = ['--batch', '2', '--query-length', '8', '--doc-length', '16', '--steps', '1'];
    const { code, stderr } = await runCliWith(
      'train',
      { model: workspace.model, triplets: generatedTriplets(), out },
      ...args,
      '--log',
      log,
    );
    expect(code).toBe(1);
    expect(stderr).toContain(`--log ${log}: the folder ${join(workspace.root, 'no-such-folder')} does not exist`);
    expect(existsSync(out)).toBe(false);
  });

  it('an input that cannot be read names its option and why', async () => {
    const { stderr } = await runCliWith('encode', {
      model: workspace.model,
      in: join(workspace.root, 'absent.jsonl'),
      out: join(workspace.root, 'v.jsonl'),
    });
    expect(stderr).toBe(
      `splade-lab encode: cannot read --in ${join(workspace.root, 'absent.jsonl')}: there is no such file; check the path\n`,
    );
  });
});

describe('run.json read back', () => {
  const huge = JSON.stringify(runRecordFixture()).replace('"k":2', '"k":1e400');
  const report = { step: 0, total: 1, rank: 1, flopsQueries: 0, flopsDocuments: 0, lambdaQueries: 0, lambdaDocuments: 0 };
  const fullReport = { ...report, activeQueries: 1, activeDocuments: 1, msPerStep: 1 };

  it.each([
    ['empty', '', 'run.json is empty'],
    ['cut-short', '{"id": "a", "k":', 'run.json is not valid JSON ('],
    ['object', '{}', 'run.json: "id" is missing, expected a string'],
    ['list', '[1, 2]', 'run.json: the record is an array, expected an object'],
    ['huge-k', huge, 'run.json: "k" is a number beyond the range of a 64-bit float (read as Infinity), expected a number'],
    ['wrong-type', JSON.stringify(runRecordFixture({ recipe: 'paper' })), 'run.json: "recipe" is a string, expected an object'],
    [
      'bad-report',
      JSON.stringify(runRecordFixture({ reports: [fullReport, null] })),
      'run.json: "reports[1]" is null, expected an object',
    ],
  ])('%s: runs and lambdas --measured name the file, the field and what to do', async (name, text, message) => {
    const folder = await writeRunJson(workspace.root, name, text);
    for (const [args, advice] of [
      [['runs', folder], "The run's checkpoints do not depend on it: move it away"],
      [['lambdas', '--measured', join(folder, 'run.json')], "Give --measured a run folder's run.json"],
    ] as const) {
      const { code, stderr } = await runCli(...args);
      expect(code).toBe(1);
      expect(stderr).toContain(`splade-lab ${args[0]}: ${join(folder, message)}`);
      expect(stderr).toContain(advice);
    }
  });
});

describe('numbers beyond float64', () => {
  it('are said as such, never as "null" (config.json and triplet JSONL)', async () => {
    const huge = join(workspace.root, 'huge-config');
    await writeTinySpladeModel(huge);
    const config = await readFile(join(huge, 'config.json'), 'utf8');
    await writeFile(join(huge, 'config.json'), config.replace(/"layer_norm_eps": [^,}]+/, '"layer_norm_eps": 1e400'));
    const { code, stderr } = await runCli('inspect', huge);
    expect(code).toBe(1);
    expect(stderr).toContain(
      '"layer_norm_eps" must be a number, got a number beyond the range of a 64-bit float (read as Infinity)',
    );
    expect(() => parseTripletsJsonl('{"query": 1e400, "positive": "p", "negative": "n"}\n', 'x.jsonl')).toThrow(
      'x.jsonl line 1: "query" must be a string, got a number beyond the range of a 64-bit float (read as Infinity)',
    );
  });
});

describe('a lesson trace of the wrong types', () => {
  it('is refused by the trace reader with what is wrong, never a TypeError', async () => {
    const file = join(process.cwd(), 'public', 'lesson', 'trace.json');
    const trace = JSON.parse(await readFile(file, 'utf8'));
    const broken = (patch: (t: any) => void) => {
      const copy = structuredClone(trace);
      patch(copy);
      return () => parseLessonTrace(copy, 'bad.json');
    };
    const cases: [(t: any) => void, string][] = [
      [(t) => (t.facts.settings.ks = [{ toString: 1 }, { toString: 1 }]), 'its ks must be numbers above 0, got an object'],
      [(t) => (t.frames[1].runs = [null, null]), 'frame 1 does not hold the ks 1, 8'],
      [(t) => (t.facts.settings.steps = '40'), 'its steps must be a whole number, got "40"'],
      [
        (t) => (t.sentence[1] = null),
        'sentence vector 1 is not the vector of k = 8 with its length, its terms and its special pieces',
      ],
      [
        (t) => (t.frames[3].runs[0].heldOut = { ndcg10: 'high' }),
        'frame 3 has held-out measures that are not all numbers for k = 1',
      ],
      [(t) => (t.frames[2] = null), 'frame 2 is step null'],
    ];
    for (const [patch, message] of cases) {
      const read = broken(patch);
      expect(read).toThrow(LessonTraceError);
      expect(read).toThrow(
        `bad.json is not a splade-lab lesson trace: ${message}; record it again with \`splade-lab lesson --trace <file>\``,
      );
    }
  });
});

// MS MARCO's toy triplets (naver/splade's toy_data, CC BY-NC-SA 4.0, read from the data folder): the file as it is
// (its mojibake kept), a short training run of a generated tiny backbone through the CLI, and the hand-off's Python
// reader giving the same rows as splade-lab's (where python3 is installed).
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFolderSource } from '../../src/io/file-source-node.ts';
import { parseTriplets, readTriplets } from '../../src/io/triplets/triplets.ts';
import { runCliWith } from '../helpers/cli.ts';
import { TINY_BATCH_SHAPE } from '../helpers/tiny-training-flags.ts';
import { tinyCliWorkspace } from '../helpers/tiny-cli-workspace.ts';
import { dataPath } from './data-folder.ts';

const TOY = dataPath('msmarco-toy');
const TRIPLETS = join(TOY, 'triplets.tsv');
const PYTHON = spawnSync('python3', ['--version']).status === 0;

const workspace = tinyCliWorkspace('splade-msmarco-toy-');

describe('MS MARCO toy triplets', () => {
  it('reads the 100 triplets, mojibake kept as it is', async () => {
    const file = await readTriplets(createFolderSource(TOY), 'triplets.tsv');
    expect(file.triplets).toHaveLength(100);
    expect(file.blankLines).toBe(0);
    expect(file.header).toBe(false);
    expect(file.triplets[0].query).toBe('is a little caffeine ok during pregnancy');
    expect(file.triplets[0].positive.startsWith('We don\u00e2\u0080\u0099t know')).toBe(true);
    for (const t of file.triplets) for (const field of [t.query, t.positive, t.negative]) expect(field.length).toBeGreaterThan(0);
  });

  it('splade-lab train runs on them and saves a model', async () => {
    const out = join(workspace.root, 'run');
    const small = [...TINY_BATCH_SHAPE, '--lr', '1e-3', '--steps', '2', '--probe-every', '0'];
    const { code, stdout, stderr } = await runCliWith('train', { model: workspace.model, triplets: TRIPLETS, out }, ...small);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('on 100 triplets of');
    expect(stdout).toMatch(/saved .*model/);
  });

  it.skipIf(!PYTHON)("the hand-off's splade_data.py reads them as splade-lab does (needs python3)", async () => {
    const project = join(workspace.root, 'handoff');
    const { code, stderr } = await runCliWith('handoff', {
      model: workspace.model,
      k: '2',
      triplets: TRIPLETS,
      out: project,
      steps: '2',
      batch: '4',
      'query-length': '8',
      'doc-length': '16',
    });
    expect(code, stderr).toBe(0);
    const script = `import json, splade_data as s\nprint(json.dumps([list(r) for r in s.read_triplets(${JSON.stringify(TRIPLETS)})]))`;
    const read = spawnSync('python3', ['-B', '-c', script], { cwd: project, encoding: 'utf8' });
    expect(read.stderr).toBe('');
    expect(JSON.parse(read.stdout)).toEqual(
      parseTriplets(await readFile(TRIPLETS), TRIPLETS).triplets.map((t) => [t.query, t.positive, t.negative]),
    );
  });
});

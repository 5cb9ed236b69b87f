// --triplets names a local path or a Hub dataset id: whatever exists at the path is read as a local file; a Hub id is
// taken as one only when nothing exists there and it has the shape org/name (and neither ends like a data file nor
// starts with a local folder). A path typo is a "no such file" error before any request, so no token is ever sent
// for it, and the CLI says on stderr when it reads a Hub dataset.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tripletsPlace } from '../../../src/app/training/training-data-node.ts';
import { runCli } from '../../helpers/cli.ts';
import { startHubServer, type HubServer } from '../../helpers/hub-server.ts';

let root: string;

let hub: HubServer;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-triplets-arg-'));
  await writeFile(join(root, 'rows.tsv'), 'q\tp\tn\n');
  await mkdir(join(root, 'datasets'));
  hub = await startHubServer(join(root, 'hub'));
});
afterAll(async () => {
  await hub.close();
  await rm(root, { recursive: true, force: true });
});

describe('--triplets: a local path or a Hub dataset id', () => {
  it('a mistyped relative path is "no such file", with no Hub request and no token sent', async () => {
    const saved = { url: process.env.SPLADE_LAB_HUB_URL, token: process.env.HF_TOKEN };
    process.env.SPLADE_LAB_HUB_URL = hub.baseUrl;
    process.env.HF_TOKEN = 'hf_secret';
    try {
      const run = await runCli('train', '--model', 'unused', '--triplets', 'tsv/missing.tsv', '--out', join(root, 'run'));
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        'splade-lab train: no such file: tsv/missing.tsv (not a Hub id: it ends in ".tsv", as a file name does)\n',
      );
      expect(hub.requests).toEqual([]);
    } finally {
      for (const [key, value] of [
        ['SPLADE_LAB_HUB_URL', saved.url],
        ['HF_TOKEN', saved.token],
      ] as const)
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
    }
  });

  it.each([
    ['tests/no-such-rows', '"tests/" is a folder here'],
    ['a/b/c', 'a Hub id is "org/name", with one "/"'],
    ['rows', 'a Hub id is "org/name", with one "/"'],
    ['org/na--me', 'each part of "org/name" is letters, digits, "-", "_" or "." (no "--" or ".."), at most 96 characters'],
    ['someone/rows.JSONL', 'it ends in ".JSONL", as a file name does'],
  ])('%s is "no such file", saying why it is not a Hub id', async (value, why) => {
    await expect(tripletsPlace(value)).rejects.toThrow(`no such file: ${value} (not a Hub id: ${why})`);
  });

  it('a path that exists is a local file whatever its shape; a folder there is refused as one', async () => {
    expect(await tripletsPlace(join(root, 'rows.tsv'))).toEqual({ kind: 'file', path: join(root, 'rows.tsv') });
    await expect(tripletsPlace(join(root, 'datasets'))).rejects.toThrow(
      `--triplets ${join(root, 'datasets')} is a folder, not a file: give a TSV, JSONL or Parquet file, or a Hub dataset id ("org/name")`,
    );
  });

  it('org/name with nothing at that path is a Hub dataset id', async () => {
    expect(await tripletsPlace('sentence-transformers/msmarco-msmarco-MiniLM-L-6-v3')).toEqual({
      kind: 'hub',
      repo: 'sentence-transformers/msmarco-msmarco-MiniLM-L-6-v3',
    });
  });
});

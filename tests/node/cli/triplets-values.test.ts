// What `train --triplets` does with values that look like Hub ids or data but are neither (issue 42, round 2's
// leftovers), all of which today's code already refuses (regression tests): `org/na%2fme` and `org/name?x=1#f` are
// refused as Hub ids, naming the characters a repo name may hold, and nothing is requested from the Hub; a Parquet
// file whose query column is INT64 is refused naming the column and its type (not read as text), never "Do not know
// how to serialize a BigInt", with or without --json.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliWith } from '../../helpers/cli.ts';
import { startHubServer, type HubServer } from '../../helpers/hub-server.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

let hub: HubServer;
const hubUrl = process.env.SPLADE_LAB_HUB_URL;
const workspace = tinyCliWorkspace('splade-triplets-values-');
beforeAll(async () => {
  hub = await startHubServer(workspace.root);
  process.env.SPLADE_LAB_HUB_URL = hub.baseUrl;
});
afterAll(async () => {
  if (hubUrl === undefined) delete process.env.SPLADE_LAB_HUB_URL;
  else process.env.SPLADE_LAB_HUB_URL = hubUrl;
  await hub.close();
});

const train = (triplets: string, ...more: string[]) =>
  runCliWith('train', { model: workspace.model, triplets, out: join(workspace.root, 'run'), steps: '1' }, ...more);

describe('train --triplets', () => {
  it.each(['org/na%2fme', 'org/name?x=1#f'])(
    '%s is refused as a Hub id, naming the characters allowed; nothing is requested',
    async (value) => {
      const { code, stderr } = await train(value);
      expect(code).toBe(1);
      expect(stderr).toContain(
        `no such file: ${value} (not a Hub id: each part of "org/name" is letters, digits, "-", "_" or "." (no "--" or ".."), at most 96 characters)`,
      );
      expect(hub.requests).toEqual([]);
    },
  );

  it.each([
    ['', []],
    [' (--json)', ['--json']],
  ])('an INT64 query column is refused naming the column and its type%s', async (_, more) => {
    const path = join(workspace.root, 'ids.parquet');
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'query', data: [1n, 2n], type: 'INT64' },
        { name: 'positive', data: ['the cat', 'the dog'], type: 'STRING' },
        { name: 'negative', data: ['the dog', 'the cat'], type: 'STRING' },
      ],
    });
    await writeFile(path, new Uint8Array(bytes));
    const { code, stderr } = await train(path, ...more);
    expect(code).toBe(1);
    expect(stderr).toContain(
      `${path}: column "query": holds INT64 values, not text (a Parquet STRING): convert it to text before writing (pandas: df["query"] = df["query"].astype(str))`,
    );
    expect(stderr).not.toContain('BigInt');
  });
});

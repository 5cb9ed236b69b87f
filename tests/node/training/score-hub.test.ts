// `splade-lab score --teacher <org/name>`: a cross-encoder read through the Hub-id path from a local server in the Hub's
// URL layout scores the rows as the same teacher read from its folder does, byte for byte.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliWith } from '../../helpers/cli.ts';
import { startHubServer, type HubServer } from '../../helpers/hub-server.ts';
import { tempFolderPerFile } from '../../helpers/temp-folder.ts';
import { writeTinyCrossEncoder } from '../../helpers/tiny-cross-encoder.ts';

const folder = tempFolderPerFile('splade-score-hub-');
let hub: HubServer;

beforeAll(async () => {
  hub = await startHubServer(join(folder.root, 'hub'));
});
afterAll(() => hub.close());

describe('splade-lab score with a Hub id', () => {
  it('downloads the teacher from the Hub layout and writes what the same teacher from its folder writes', async () => {
    const local = join(folder.root, 'teacher');
    await writeTinyCrossEncoder(local, { seed: 11 });
    await writeTinyCrossEncoder(join(folder.root, 'hub', 'tiny-org', 'tiny-reranker'), { seed: 11 });
    const rows = join(folder.root, 'rows.tsv');
    await writeFile(rows, 'cat mat\tthe cat sat on the mat\ta dog ran fast\nstar\tsun moon and star light\tpaper\n');
    const fromFolder = await runCliWith('score', { teacher: local, in: rows, out: join(folder.root, 'folder.tsv') });
    expect(fromFolder.code, fromFolder.stderr).toBe(0);
    process.env.SPLADE_LAB_HUB_URL = hub.baseUrl;
    process.env.SPLADE_LAB_CACHE = join(folder.root, 'cache');
    try {
      const fromHub = await runCliWith('score', {
        teacher: 'tiny-org/tiny-reranker',
        in: rows,
        out: join(folder.root, 'hub.tsv'),
      });
      expect(fromHub.code, fromHub.stderr).toBe(0);
      expect(hub.requests.some((r) => r.startsWith('/tiny-org/tiny-reranker/resolve/main/model.safetensors'))).toBe(true);
      expect(hub.requests.some((r) => r.startsWith('/tiny-org/tiny-reranker/resolve/main/config.json'))).toBe(true);
    } finally {
      delete process.env.SPLADE_LAB_HUB_URL;
      delete process.env.SPLADE_LAB_CACHE;
    }
    expect(await readFile(join(folder.root, 'hub.tsv'), 'utf8')).toBe(await readFile(join(folder.root, 'folder.tsv'), 'utf8'));
  });
});

// `splade-lab eval --nanobeir`: NanoBEIR sets (Parquet) from a local server in the Hub's dataset layout; one set
// gives the same measures as the same data as a BEIR folder; several are evaluated and averaged; bad names refused.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { startHubServer, type HubServer } from '../../helpers/hub-server.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

interface ToySet {
  docs: [string, string][];
  queries: [string, string][];
  qrels: [string, string][];
}

const SETS: Record<string, ToySet> = {
  SciFact: {
    docs: [
      ['d1', 'the protein and the gene'],
      ['d2', 'a study of the brain'],
      ['d3', 'the cancer drug results'],
      ['d4', 'blood and the heart'],
    ],
    queries: [
      ['q1', 'gene protein'],
      ['q2', 'cancer drug'],
    ],
    qrels: [
      ['q1', 'd1'],
      ['q2', 'd3'],
    ],
  },
  NFCorpus: {
    docs: [
      ['n1', 'the sea and the river'],
      ['n2', 'the moon and the star'],
      ['n3', 'music and song'],
    ],
    queries: [
      ['m1', 'river sea'],
      ['m2', 'song'],
    ],
    qrels: [
      ['m1', 'n1'],
      ['m2', 'n3'],
    ],
  },
};

const column = (name: string, data: string[]) => ({ name, data, type: 'STRING' as const });
/** A parquet table of two string columns, named `first` and `second`, from rows of pairs. */
const pairTable = (rows: [string, string][], first: string, second: string) =>
  parquetWriteBuffer({
    columnData: [
      column(
        first,
        rows.map((r) => r[0]),
      ),
      column(
        second,
        rows.map((r) => r[1]),
      ),
    ],
  });

let hub: HubServer;

const workspace = tinyCliWorkspace('splade-nanobeir-', 'model');
beforeAll(async () => {
  for (const [name, set] of Object.entries(SETS)) {
    const repo = join(workspace.root, 'hub', 'datasets', 'zeta-alpha-ai', `Nano${name}`);
    const tables = {
      corpus: pairTable(set.docs, '_id', 'text'),
      queries: pairTable(set.queries, '_id', 'text'),
      qrels: pairTable(set.qrels, 'query-id', 'corpus-id'),
    };
    for (const [table, bytes] of Object.entries(tables)) {
      await mkdir(join(repo, table), { recursive: true });
      await writeFile(join(repo, table, 'train-00000-of-00001.parquet'), new Uint8Array(bytes));
    }
    const beir = join(workspace.root, 'beir', name);
    await mkdir(join(beir, 'qrels'), { recursive: true });
    await writeFile(
      join(beir, 'corpus.jsonl'),
      set.docs.map(([id, text]) => JSON.stringify({ _id: id, text })).join('\n') + '\n',
    );
    await writeFile(
      join(beir, 'queries.jsonl'),
      set.queries.map(([id, text]) => JSON.stringify({ _id: id, text })).join('\n') + '\n',
    );
    await writeFile(
      join(beir, 'qrels', 'test.tsv'),
      'query-id\tcorpus-id\tscore\n' + set.qrels.map(([q, d]) => `${q}\t${d}\t1`).join('\n') + '\n',
    );
  }
  hub = await startHubServer(join(workspace.root, 'hub'));
  process.env.SPLADE_LAB_HUB_URL = hub.baseUrl;
  process.env.SPLADE_LAB_CACHE = join(workspace.root, 'cache');
});
afterAll(async () => {
  delete process.env.SPLADE_LAB_HUB_URL;
  delete process.env.SPLADE_LAB_CACHE;
  await hub?.close();
});

const SMALL = ['--query-length', '8', '--doc-length', '16', '--json'];

const MEASURES = ['ndcg_cut_10', 'recip_rank_10', 'recall_100', 'recall_1000', 'map'];

describe('splade-lab eval --nanobeir', () => {
  it("reads a set from the Hub's dataset layout and scores it as the same data in a BEIR folder", async () => {
    const nano = await runCli('eval', '--model', workspace.model, '--nanobeir', 'SciFact', ...SMALL);
    expect(nano.stderr).toBe('');
    expect(nano.code).toBe(0);
    expect(hub.requests).toContain('/datasets/zeta-alpha-ai/NanoSciFact/resolve/main/corpus/train-00000-of-00001.parquet');
    const beir = await runCli('eval', '--model', workspace.model, '--beir', join(workspace.root, 'beir', 'SciFact'), ...SMALL);
    const [a, b] = [JSON.parse(nano.stdout), JSON.parse(beir.stdout)];
    for (const name of MEASURES) expect(a[name], name).toBe(b[name]);
    expect(a.efficiency).toEqual(b.efficiency);
  });

  it('evaluates several sets one after another and reports their mean', async () => {
    const { code, stdout, stderr } = await runCli(
      'eval',
      '--model',
      workspace.model,
      '--nanobeir',
      'scifact,NanoNFCorpus',
      ...SMALL,
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.sets.map((s: { name: string }) => s.name)).toEqual(['NanoSciFact', 'NanoNFCorpus']);
    for (const name of MEASURES) expect(out.mean[name]).toBeCloseTo((out.sets[0][name] + out.sets[1][name]) / 2, 12);
  });

  it('refuses an unknown set, naming the real ones, and both --beir and --nanobeir at once', async () => {
    const unknown = await runCli('eval', '--model', workspace.model, '--nanobeir', 'SciFoo');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('"SciFoo" is not a NanoBEIR set; the sets are ClimateFEVER');
    const both = await runCli('eval', '--model', workspace.model, '--nanobeir', 'SciFact', '--beir', workspace.root);
    expect(both.stderr).toContain('give --beir <dir> or --nanobeir <name|all>, one of them');
  });
});

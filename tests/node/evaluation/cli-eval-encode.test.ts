// `splade-lab eval` and `splade-lab encode` end to end on a generated tiny model and a small BEIR folder.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { parseRun } from '../../../src/io/trec.ts';
import { GpuModel } from '../../../src/model/gpu-model.ts';
import { loadModel } from '../../../src/model/load-model.ts';
import { SpladeTextEncoder } from '../../../src/model/splade-encoder.ts';
import { runCli } from '../../helpers/cli.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

const DOCS = [
  { _id: 'd1', title: 'cats', text: 'the cat sat on the mat' },
  { _id: 'd2', title: '', text: 'a drug study of the gene' },
  { _id: 'd3', title: 'sea', text: 'the river and the sea' },
  { _id: 'd4', title: '', text: 'music and song in the city' },
  { _id: 'd5', title: '', text: 'sparse vector search and rank' },
];

const QUERIES = [
  { _id: 'q1', text: 'cat mat' },
  { _id: 'q2', text: 'gene drug' },
];

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-cli-'));
  await writeTinySpladeModel(join(root, 'model'));
  const beir = join(root, 'beir');
  await mkdir(join(beir, 'qrels'), { recursive: true });
  await writeFile(join(beir, 'corpus.jsonl'), DOCS.map((d) => JSON.stringify(d)).join('\n') + '\n');
  await writeFile(join(beir, 'queries.jsonl'), QUERIES.map((q) => JSON.stringify(q)).join('\n') + '\n');
  await writeFile(join(beir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n');
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('splade-lab eval', () => {
  it('encodes, retrieves and reports trec_eval measures and sparsity as JSON, and writes the run', async () => {
    const runPath = join(root, 'run.trec');
    const { code, stdout, stderr } = await runCli(
      'eval',
      '--model',
      join(root, 'model'),
      '--beir',
      join(root, 'beir'),
      '--json',
      '--run',
      runPath,
      '--top-k',
      '3',
    );
    // The default lengths (256 for documents) exceed the tiny model's 64 positions: capped, with a warning and nothing else.
    expect(stderr).toBe(
      `warning: ${join(root, 'beir')}: lengths capped at 64 tokens, the longest this model encodes (its position table ends there)\n`,
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.warnings).toEqual([expect.stringMatching(/^lengths capped at 64 tokens/)]);
    for (const key of ['ndcg_cut_10', 'recip_rank_10', 'recall_100', 'recall_1000', 'P_10', 'map']) {
      expect(report[key], key).toBeGreaterThanOrEqual(0);
      expect(report[key], key).toBeLessThanOrEqual(1);
    }
    expect(report.efficiency.query_active_dims).toBeGreaterThan(0);
    expect(report.efficiency.corpus_active_dims).toBeGreaterThan(0);
    const { run } = parseRun(await readFile(runPath, 'utf8'));
    expect([...run.keys()].sort()).toEqual(['q1', 'q2']);
    expect(run.get('q1')!.size).toBe(3);
  });
});

describe('splade-lab encode', () => {
  it.each(['anserini', 'qdrant', 'es'] as const)('writes %s vectors equal to the GPU encoder output', async (format) => {
    const input = join(root, 'docs.jsonl');
    const output = join(root, `vectors.${format}.jsonl`);
    await writeFile(input, DOCS.map((d) => JSON.stringify(d)).join('\n') + '\n');
    const { code } = await runCli(
      'encode',
      '--model',
      join(root, 'model'),
      '--in',
      input,
      '--out',
      output,
      '--format',
      format,
      '--max-length',
      '16',
    );
    expect(code).toBe(0);
    const lines = (await readFile(output, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual(DOCS.map((d) => d._id));

    const ctx = await gpuContext();
    const loaded = await loadModel(createFolderSource(join(root, 'model')));
    const encoder = new SpladeTextEncoder(ctx, GpuModel.upload(ctx, loaded.config, loaded.params), loaded.tokenizer);
    const vectors = await encoder.encode(
      DOCS.map((d) => (d.title ? `${d.title} ${d.text}` : d.text)),
      { maxLength: 16 },
    );
    const token = (id: number) => loaded.tokenizer.idToToken(id)!;
    lines.forEach((line, i) => {
      const v = vectors[i];
      if (format === 'qdrant') {
        expect(line.vector.indices).toEqual([...v.indices]);
        expect(line.vector.values).toEqual([...v.values]);
      } else if (format === 'anserini') {
        const expected = Object.fromEntries(
          [...v.indices].map((id, j) => [token(id), Math.round(100 * v.values[j])] as const).filter(([, w]) => w !== 0),
        );
        expect(line.vector).toEqual(expected);
      } else {
        expect(Object.keys(line.rank_features).length).toBe(v.indices.length);
        expect(line.rank_features[token(v.indices[0])]).toBeCloseTo(v.values[0], 6);
      }
    });
  });

  it('refuses an unknown format', async () => {
    const { code, stderr } = await runCli(
      'encode',
      '--model',
      join(root, 'model'),
      '--in',
      'x',
      '--out',
      'y',
      '--format',
      'lucene',
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/--format must be one of anserini, qdrant, es/);
  });
});

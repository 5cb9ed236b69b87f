// `splade-lab eval` and `splade-lab encode` end to end on a generated tiny model and a small BEIR folder.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { parseRun } from '../../../src/io/beir/trec.ts';
import { GpuModel } from '../../../src/model/gpu-model.ts';
import { loadModel } from '../../../src/model/load-model.ts';
import { SpladeTextEncoder } from '../../../src/model/splade-encoder.ts';
import { runCli, runCliWith } from '../../helpers/cli.ts';
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
  /** The encoder's vectors of DOCS, and the token of an id. */
  async function reference() {
    const ctx = await gpuContext();
    const loaded = await loadModel(createFolderSource(join(root, 'model')));
    const encoder = new SpladeTextEncoder(ctx, GpuModel.upload(ctx, loaded.config, loaded.params), loaded.tokenizer);
    const vectors = await encoder.encode(
      DOCS.map((d) => (d.title ? `${d.title} ${d.text}` : d.text)),
      { maxLength: 16 },
    );
    return { vectors, token: (id: number) => loaded.tokenizer.idToToken(id)! };
  }

  async function encode(format: string, ...extra: string[]) {
    const input = join(root, 'docs.jsonl');
    const output = join(root, `vectors.${format}.jsonl`);
    await writeFile(input, DOCS.map((d) => JSON.stringify(d)).join('\n') + '\n');
    const result = await runCliWith(
      'encode',
      { model: join(root, 'model'), in: input, out: output, format, 'max-length': '16' },
      ...extra,
    );
    expect(result.code, result.stderr).toBe(0);
    const text = await readFile(output, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    return {
      ...result,
      lines: text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    };
  }

  it.each(['anserini', 'seismic', 'vespa', 'qdrant'] as const)(
    'writes %s vectors equal to the GPU encoder output',
    async (format) => {
      const { lines } = await encode(format);
      const { vectors, token } = await reference();
      lines.forEach((line, i) => {
        const v = vectors[i];
        const byToken = (f: (w: number) => number) =>
          Object.fromEntries([...v.indices].map((id, j) => [token(id), f(v.values[j])] as const).filter(([, w]) => w !== 0));
        const read = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, w]) => [k, Math.fround(w)]));
        if (format === 'anserini') {
          expect(line.id).toBe(DOCS[i]._id);
          expect(line.vector).toEqual(byToken((w) => Math.round(100 * w)));
        } else if (format === 'seismic') {
          expect([line.id, line.content]).toEqual([
            DOCS[i]._id,
            DOCS[i].title ? `${DOCS[i].title} ${DOCS[i].text}` : DOCS[i].text,
          ]);
          expect(read(line.vector)).toEqual(byToken((w) => w));
        } else if (format === 'vespa') {
          expect(line.put).toBe(`id:splade:doc::${DOCS[i]._id}`);
          expect(read(line.fields.splade.cells)).toEqual(byToken((w) => w));
        } else {
          expect(line.id).toBe(i); // "d1".. are no Qdrant ids: points numbered by line
          expect(line.payload.doc_id).toBe(DOCS[i]._id);
          expect(line.vector.splade.indices).toEqual([...v.indices]);
          expect(line.vector.splade.values.map(Math.fround)).toEqual([...v.values]);
        }
      });
    },
  );

  it.each(['es', 'opensearch', 'opensearch-ids'] as const)('writes %s as _bulk action and source lines', async (format) => {
    const { lines } = await encode(format, '--field', 'tokens');
    const { vectors, token } = await reference();
    expect(lines).toHaveLength(2 * DOCS.length);
    DOCS.forEach((doc, i) => {
      expect(lines[2 * i]).toEqual({ index: { _id: doc._id } });
      const v = vectors[i];
      const name = (id: number) => (format === 'opensearch-ids' ? String(id) : token(id));
      const expected = Object.fromEntries([...v.indices].map((id, j) => [name(id), v.values[j]]));
      const got = Object.fromEntries(
        Object.entries(lines[2 * i + 1].tokens as Record<string, number>).map(([k, w]) => [k, Math.fround(w)]),
      );
      expect(got).toEqual(expected);
    });
  });

  it('writes the Vespa schema and services.xml beside the feed, the schema named after the document type', async () => {
    const schema = join(root, 'passage.sd');
    const services = join(root, 'services.xml');
    const { lines, stderr } = await encode(
      'vespa',
      '--vespa-doctype',
      'passage',
      '--vespa-namespace',
      'lab',
      '--vespa-schema',
      schema,
      '--vespa-services',
      services,
    );
    expect(lines[0].put).toBe(`id:lab:passage::${DOCS[0]._id}`);
    expect(await readFile(schema, 'utf8')).toMatch(/^schema passage \{$/m);
    expect(await readFile(services, 'utf8')).toMatch(/<document type="passage" mode="index" \/>/);
    expect(stderr).toMatch(/wrote the Vespa schema to .*passage\.sd/);
    const misnamed = await runCliWith('encode', {
      model: join(root, 'model'),
      in: 'x',
      out: join(root, 'y'),
      format: 'vespa',
      'vespa-schema': join(root, 'doc-schema.sd'),
    });
    expect([misnamed.code, misnamed.stderr]).toEqual([1, expect.stringMatching(/name it doc\.sd/)]);
    const wrongFormat = await runCliWith('encode', {
      model: join(root, 'model'),
      in: 'x',
      out: join(root, 'y'),
      'vespa-services': services,
    });
    expect([wrongFormat.code, wrongFormat.stderr]).toEqual([1, expect.stringMatching(/go with --format vespa/)]);
  });

  it('refuses an unknown format and a field name no engine takes', async () => {
    const unknown = await runCliWith('encode', { model: join(root, 'model'), in: 'x', out: 'y', format: 'lucene' });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/--format must be one of anserini, qdrant, es, opensearch, opensearch-ids, vespa, seismic/);
    const field = await runCliWith('encode', { model: join(root, 'model'), in: 'x', out: 'y', field: 'a.b' });
    expect([field.code, field.stderr]).toEqual([1, expect.stringMatching(/--field: field name "a\.b" is not usable/)]);
  });
});

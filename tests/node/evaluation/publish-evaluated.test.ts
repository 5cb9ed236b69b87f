// The page's "Publish as a static search" below the worker: an evaluated set published from the vectors its evaluation
// kept (nothing encoded again) as one folder in a zip, its manifest naming the evaluation's k, length and corpus, the
// published search's exact nDCG@10 the evaluation's own, and a cold search's bytes counted file by file; a model that
// is not inference-free is refused.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateOnSet } from '../../../src/app/evaluation/evaluate-on-set.ts';
import { publishEvaluatedSet } from '../../../src/app/evaluation/publish-evaluated.ts';
import { NotInferenceFreeError } from '../../../src/app/evaluation/publish-site.ts';
import { RUNTIME_FILES, coldQueryTransfer } from '../../../src/app/evaluation/publish-transfer.ts';
import type { ModelSession } from '../../../src/app/model/model-session.ts';
import { withModelSession } from '../../../src/cli/model/model-session.ts';
import type { RetrievalDataset } from '../../../src/contract/evaluation/dataset.ts';
import { PUBLISH_SETTINGS } from '../../../src/contract/evaluation/published-search.ts';
import { EVAL_DEFAULTS } from '../../../src/contract/limits.ts';
import { beirDocumentText, loadBeir } from '../../../src/io/beir/beir.ts';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { SearchEngine } from '../../../src/publish-runtime/engine.ts';
import type { Manifest } from '../../../src/publish-runtime/manifest.ts';
import { generatedBeir } from '../../helpers/generated-data.ts';
import { writeTinyPublishModels } from '../../helpers/tiny-sparse-encoder-folder.ts';

const RUNTIME = {
  script: new TextEncoder().encode('// splade-search.js stands in\n'),
  worker: new TextEncoder().encode('// its engine stands in\n'),
};
const REQUEST = { ...EVAL_DEFAULTS, k: 2, queryLength: 16, documentLength: 32 };

let root: string;
let plain: string;
let router: string;
let dataset: RetrievalDataset;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-publish-evaluated-'));
  ({ plain, router } = await writeTinyPublishModels(root));
  const read = await loadBeir(createFolderSource(generatedBeir()), 'test');
  // titles, as a BEIR corpus with a "title" field gives them: the encoder reads title and text joined
  const titles = read.corpusIds.map((id) => `About ${id}`);
  dataset = { ...read, corpusTitles: titles, corpusTexts: read.corpusTexts.map((text, d) => beirDocumentText(titles[d], text)) };
});

afterAll(() => rm(root, { recursive: true, force: true }));

/** The session with its encode calls counted (publishing must encode nothing again). */
function counted(session: ModelSession): { session: ModelSession; encodes: () => number } {
  let calls = 0;
  const spy = new Proxy(session, {
    get(target, name, receiver) {
      const member = Reflect.get(target, name, receiver);
      if ((name === 'encode' || name === 'encodeQueries') && typeof member === 'function')
        return (...args: unknown[]) => (calls++, member.apply(target, args));
      return typeof member === 'function' ? member.bind(target) : member;
    },
  });
  return { session: spy, encodes: () => calls };
}

describe("the page's Publish as a static search", () => {
  it("publishes the evaluated set from its kept vectors: one folder zipped, the evaluation's settings, its exact nDCG@10, a cold search's bytes", async () => {
    await withModelSession(router, 'publish evaluated', {}, async (session) => {
      const { kept, result } = await evaluateOnSet(session, dataset, REQUEST, { bm25: true });
      const { session: spied, encodes } = counted(session);
      const stages: string[] = [];
      const published = await publishEvaluatedSet(spied, kept!, RUNTIME, PUBLISH_SETTINGS, (stage) => stages.push(stage));
      expect(encodes(), 'the kept vectors are published, not encoded again').toBe(0);
      expect(stages).toEqual(['index', 'measure', 'transfer']);

      const files = unzipSync(published.zip);
      const folder = `${published.name}/`;
      expect(Object.keys(files).every((path) => path.startsWith(folder))).toBe(true);
      expect(Object.keys(files)).toHaveLength(published.files);
      for (const file of ['manifest.json', 'search.json', ...RUNTIME_FILES]) expect(files[folder + file], file).toBeDefined();
      const manifest = JSON.parse(new TextDecoder().decode(files[`${folder}manifest.json`])) as Manifest;
      expect(manifest.model).toMatchObject({ k: 2, documentLength: 32, prune: 0, inferenceFree: true });
      expect(published.weights).toBe(manifest.splade.weights);
      expect(manifest.corpus.documents).toBe(dataset.corpusIds.length);
      const lines = dataset.corpusIds.map((id, d) => JSON.stringify([id, dataset.corpusTexts[d]])).join('\n');
      expect(manifest.corpus.fingerprint).toBe(`sha256:${createHash('sha256').update(lines).digest('hex')}`);
      expect(published.sizes.total).toBe(manifest.sizes.total);

      // exact retrieval of the published vectors is the evaluation's own ranking
      const splade = published.quality.find((q) => q.system === 'splade')!;
      expect(splade.queries).toBe(dataset.queryIds.length);
      expect(splade.exact).toBeCloseTo(result.splade.metrics.ndcg_cut_10, 10);
      expect(splade.published).toBeGreaterThan(0);

      // a cold search's bytes: the runtime's three files and what a fresh engine reads, counted here again
      const transfer = published.transfer!;
      const sizeOf = (path: string) => files[folder + path].length;
      expect(transfer.runtime).toBe(RUNTIME_FILES.reduce((sum, path) => sum + sizeOf(path), 0));
      const perQuery: number[] = [];
      let titled = 0;
      for (const text of dataset.queryTexts) {
        let bytes = transfer.runtime;
        const engine = await SearchEngine.open(async (path) => ((bytes += sizeOf(path)), files[folder + path]));
        const { hits } = await engine.search(text, { k: 10 });
        perQuery.push(bytes);
        // a hit shows its corpus title as the heading, and the rest of its text below
        if (hits.length === 0) continue;
        const d = dataset.corpusIds.indexOf(hits[0].id!);
        expect([hits[0].title, dataset.corpusTexts[d].endsWith(hits[0].snippet!)]).toEqual([`About ${hits[0].id}`, true]);
        expect(hits[0].snippet).not.toContain('About');
        titled++;
      }
      expect(titled, 'queries whose first hit was looked at (the tiny model matches few)').toBeGreaterThan(2);
      perQuery.sort((a, b) => a - b);
      expect([transfer.queries, transfer.p50, transfer.p90]).toEqual([
        perQuery.length,
        perQuery[Math.ceil(0.5 * perQuery.length) - 1],
        perQuery[Math.ceil(0.9 * perQuery.length) - 1],
      ]);
      expect(transfer.filesP50).toBeGreaterThan(RUNTIME_FILES.length);
      expect(await coldQueryTransfer({ files: [], manifestBytes: new Uint8Array() }, [])).toBeNull();
    });
  });

  it("publishes with the form's settings (lossless weights, a cap, no BM25, other shard and chunk sizes) and refuses bad ones before any work", async () => {
    await withModelSession(router, 'publish evaluated', {}, async (session) => {
      const { kept } = await evaluateOnSet(session, dataset, REQUEST, { bm25: true });
      const settings = { weights: 'float32', cap: null, bm25: false, shardKb: 4, chunk: 7 } as const;
      const published = await publishEvaluatedSet(session, kept!, RUNTIME, settings);
      const files = unzipSync(published.zip);
      const manifest = JSON.parse(new TextDecoder().decode(files[`${published.name}/manifest.json`])) as Manifest;
      expect([published.weights, manifest.splade.weights]).toEqual(['float32', 'float32']);
      expect(
        published.quality.map((q) => q.system),
        'no BM25 postings, so no BM25 measure',
      ).toEqual(['splade']);
      const [lossless] = published.quality;
      expect([lossless.published, lossless.rankingsDiffering]).toEqual([lossless.exact, 0]);
      expect(
        Object.keys(files).some((path) => /bm25/i.test(path)),
        'no BM25 file',
      ).toBe(false);
      const capped = await publishEvaluatedSet(session, kept!, RUNTIME, { ...settings, cap: 1 });
      expect(capped.quality[0].rankingsDiffering, 'one document per posting list changes rankings').toBeGreaterThan(0);
      expect(manifest.documents.chunkSize).toBe(7);

      for (const [bad, said] of [
        [{ cap: 0 }, /a cap of 0 would keep no document/],
        [{ cap: 2.5 }, /the cap must be a whole number of at least 1/],
        [{ shardKb: 0 }, /the shard size must be a whole number of KiB from 1 to 65536, not 0/],
        [{ chunk: Number.NaN }, /documents per chunk must be a whole number from 1 to 100000, not NaN/],
        [{ weights: 'int4' }, /weights must be one of uint8, float16, float32, not "int4"/],
      ] as const) {
        const { session: spied, encodes } = counted(session);
        await expect(publishEvaluatedSet(spied, kept!, RUNTIME, { ...PUBLISH_SETTINGS, ...bad } as never)).rejects.toThrow(said);
        expect(encodes()).toBe(0);
      }
    });
  });

  it('refuses a model that is not inference-free, saying so', async () => {
    await withModelSession(plain, 'publish evaluated', {}, async (session) => {
      const { kept } = await evaluateOnSet(session, dataset, REQUEST, { bm25: true });
      await expect(publishEvaluatedSet(session, kept!, RUNTIME)).rejects.toThrow(NotInferenceFreeError);
      await expect(publishEvaluatedSet(session, kept!, RUNTIME)).rejects.toThrow(
        /is not inference-free: .*Train a run with inference-free queries/,
      );
    });
  });
});

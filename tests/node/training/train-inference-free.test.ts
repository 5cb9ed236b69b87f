// Issue 31's inference-free SPLADE through `splade-lab train --inference-free`: a query is its tokens weighted by a
// static IDF table (frozen, or trained with --train-query-weights and an L1), only documents are encoded; one SGD step moves every weight by -lr x the float64
// gradient of the ranking loss plus the documents' FLOPS (no query encoder, no query FLOPS), on BERT and ModernBERT,
// with the table made from the training documents or from --idf-from; the saved Router folder (static query route,
// MLMTransformer + SpladePooling document route) reads back: its table is the run's, encode --side query looks it up,
// and audit --query audits the query as that lookup.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { parseTriplets } from '../../../src/io/triplets/triplets.ts';
import { readSafetensors } from '../../../src/io/formats/safetensors.ts';
import { memoryTripletSource } from '../../../src/io/triplets/triplet-source.ts';
import { loadModel, type LoadedModel } from '../../../src/model/load-model.ts';
import { TripletBatches } from '../../../src/train/splade/batches.ts';
import { sgdUpdateReference, spladeTrainingReference } from '../../../src/train/splade/splade-training-reference.ts';
import { staticQueryVectors } from '../../../src/train/splade/static-queries.ts';
import { documentFrequencyOf, idfWeights } from '../../../src/retrieval/idf-table.ts';
import { runCli } from '../../helpers/cli.ts';
import {
  expectUpdates,
  FOUR_TRIPLETS_TSV,
  plainStepRequest,
  startingPoint,
  trainOneStepInProcess,
  type StepEvent,
} from '../../helpers/one-step-run.ts';
import { corpusQueryWeights } from '../../../src/app/evaluation/idf-table-node.ts';
import { expectClose } from '../../helpers/compare.ts';
import type { PairAudit } from '../../../src/contract/model/pair-audit.ts';
import { writeTinyFamilyModels } from '../../helpers/tiny-model-families.ts';

const K = 2;
const LR = 0.05;
const TSV = FOUR_TRIPLETS_TSV;
const CORPUS = ['the cat and the dog', 'a study of the heart', 'the sea and the sun', 'vector search'].join('\n') + '\n';

const PLAIN = ['--optimizer', 'sgd', '--steps', '1', '--batch', '4', '--lr', String(LR), '--weight-decay', '0'];
PLAIN.push('--warmup-ratio', '0', '--flops-ramp-ratio', '0', '--max-grad-norm', '0', '--dropout', '0', '--no-shuffle');
PLAIN.push('--k', String(K), '--query-length', '8', '--doc-length', '12', '--lambda-q', '0.05', '--lambda-d', '0.003');
PLAIN.push('--report-every', '1', '--json', '--no-batch-cache', '--inference-free');

let root: string;
const models: Record<string, { dir: string; loaded: LoadedModel }> = {};
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-inference-free-'));
  await writeFile(join(root, 'four.tsv'), TSV);
  await writeFile(join(root, 'corpus.txt'), CORPUS);
  Object.assign(models, await writeTinyFamilyModels(root, ['bert', 'modernbert']));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** The table as the run makes it: IDF of `texts` (each once), special tokens 0, in float32. */
function table(loaded: LoadedModel, texts: string[]): Float32Array {
  const ids = [...new Set(texts)].map((text) => loaded.tokenizer.encode(text, { addSpecialTokens: false }).ids);
  const { df, documents } = documentFrequencyOf(ids, loaded.config.vocabSize);
  const weights = Float32Array.from(idfWeights(df, documents));
  for (const id of Object.values(loaded.tokenizer.specialIds)) if (id !== null) weights[id] = 0;
  return weights;
}

/** One inference-free SGD step through the CLI (PLAIN's flags and `extra`), its JSON events. */
async function trainThroughCli(dir: string, out: string, ...extra: string[]): Promise<StepEvent[]> {
  const result = await runCli('train', '--model', dir, '--triplets', join(root, 'four.tsv'), '--out', out, ...PLAIN, ...extra);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as StepEvent);
}

/** One inference-free step through trainModel in this process (the CLI's path without its process), saved. */
function trainInProcess(arch: string, out: string, idfFrom?: string) {
  const request = { ...plainStepRequest(K, LR), inferenceFree: true };
  return trainOneStepInProcess(models[arch].dir, TSV, 'four.tsv', out, request, {
    ...(idfFrom ? { queryWeights: (tokenizer) => corpusQueryWeights(idfFrom, tokenizer) } : {}),
  });
}

describe('inference-free SPLADE: one SGD step against the float64 gradient', () => {
  it.each([
    ['bert', 'the training documents', 'the CLI'],
    ['modernbert', 'the training documents', 'the trainer'],
    ['bert', '--idf-from', 'the trainer'],
  ] as const)('%s, query weights from %s, through %s', async (arch, from: string, via: string) => {
    const { dir, loaded } = models[arch];
    const out = join(root, `${arch}-${from === '--idf-from' ? 'corpus' : 'data'}`);
    let events: { event: string; [key: string]: unknown }[];
    if (via === 'the CLI') {
      const extra = from === '--idf-from' ? ['--idf-from', join(root, 'corpus.txt')] : [];
      events = await trainThroughCli(dir, out, ...extra);
    } else {
      events = await trainInProcess(arch, out, from === '--idf-from' ? join(root, 'corpus.txt') : undefined);
    }
    const start = startingPoint(loaded, K);
    const { triplets } = parseTriplets(TSV, 'four.tsv');
    const documents = from === '--idf-from' ? CORPUS.trim().split('\n') : triplets.flatMap((t) => [t.positive, t.negative]);
    const weights = table(loaded, documents);
    const shape = { batchSize: 4, queryLength: 8, documentLength: 12, dataOrder: 'file' as const, negatives: 1 };
    const { batch } = await new TripletBatches(memoryTripletSource(triplets), loaded.tokenizer, shape, 1).next();
    const settings = { queryLength: 8, documentLength: 12, tau: 1, lambdaQueries: 0.05, lambdaDocuments: 0.003 };
    const reference = spladeTrainingReference(loaded.config, start, batch, { ...settings, queryWeights: weights });
    const step = events.find((e) => e.event === 'step') as { rank: number; flopsQueries: number } | undefined;
    if (via === 'the CLI') {
      // the run's query probes are the table's vectors too: no expansion, each token at its static weight
      const probe = events.find((e) => e.event === 'probe') as
        | { probes: { role: string; terms: { id: number; weight: number; expansion: boolean }[] }[] }
        | undefined;
      const queryTerms = probe!.probes.filter((p) => p.role === 'query').flatMap((p) => p.terms);
      expect(queryTerms.length).toBeGreaterThan(0);
      for (const t of queryTerms) {
        expect(t.expansion).toBe(false);
        expect(t.weight).toBeCloseTo(weights[t.id], 5);
      }
    }
    expect(step?.rank).toBeCloseTo(reference.rank, 3);
    expect(step?.flopsQueries).toBe(0);
    const saved = await loadModel(createFolderSource(join(out, 'model', 'document_0_MLMTransformer')));
    const largest = expectUpdates(`${arch} inference-free`, saved, start, (name) => reference.grads[name].map((g) => -LR * g));
    expect(largest).toBeGreaterThan(1e-4);
    // the queries are the table's vectors: each query token once at its weight, [CLS] and [SEP] at 0
    const vectors = staticQueryVectors(new Float32Array(4 * loaded.config.vocabSize), weights, batch.queryIds, batch.queryMask);
    const cls = loaded.tokenizer.specialIds.cls;
    expect(vectors[cls]).toBe(0);
    expect(vectors.filter((x) => x > 0).length).toBeGreaterThan(4);
    // the saved Router's query route is the very table the run trained with
    const router = JSON.parse(await readFile(join(out, 'model', 'router_config.json'), 'utf8'));
    expect(router.structure).toEqual({
      query: ['query_0_SparseStaticEmbedding'],
      document: ['document_0_MLMTransformer', 'document_1_SpladePooling'],
    });
    const stored = readSafetensors(await readFile(join(out, 'model', 'query_0_SparseStaticEmbedding', 'model.safetensors')), 'q');
    expect(Array.from(stored.tensors.get('weight')!.data)).toEqual(Array.from(weights));
  });

  it.each([
    ['bert', 'the CLI'],
    ['modernbert', 'the trainer'],
  ] as const)(
    '%s, --train-query-weights --query-l1 0.02 --query-table-lr 0.2 through %s: the table moves by -its own lr x its float64 gradient too',
    async (arch, via) => {
      const { dir, loaded } = models[arch];
      const out = join(root, `${arch}-trained-table`);
      const L1 = 0.02;
      const TABLE_LR = 0.2;
      let events: { event: string; [key: string]: unknown }[];
      if (via === 'the CLI') {
        const table = ['--query-l1', String(L1), '--query-table-lr', String(TABLE_LR)];
        events = await trainThroughCli(dir, out, '--train-query-weights', ...table);
      } else {
        const trained = { trainQueryWeights: true, queryL1: L1, queryTableLr: TABLE_LR };
        const request = { ...plainStepRequest(K, LR), inferenceFree: true, ...trained };
        events = await trainOneStepInProcess(dir, TSV, 'four.tsv', out, request);
      }
      const start = startingPoint(loaded, K);
      const { triplets } = parseTriplets(TSV, 'four.tsv');
      const weights = table(
        loaded,
        triplets.flatMap((t) => [t.positive, t.negative]),
      );
      const shape = { batchSize: 4, queryLength: 8, documentLength: 12, dataOrder: 'file' as const, negatives: 1 };
      const { batch } = await new TripletBatches(memoryTripletSource(triplets), loaded.tokenizer, shape, 1).next();
      const frozenIds = Object.values(loaded.tokenizer.specialIds).filter((id): id is number => id !== null);
      const settings = { queryLength: 8, documentLength: 12, tau: 1, lambdaQueries: L1, lambdaDocuments: 0.003 };
      const trainedTable = { frozenIds };
      const reference = spladeTrainingReference(loaded.config, start, batch, {
        ...settings,
        queryWeights: weights,
        trainedQueryTable: trainedTable,
      });
      const step = events.find((e) => e.event === 'step') as unknown as {
        rank: number;
        flopsQueries: number;
        lambdaQueries: number;
      };
      expect(step.rank).toBeCloseTo(reference.rank, 3);
      // the query slot holds the batch's mean L1 norm of its query vectors, weighted by --query-l1
      expect(step.flopsQueries).toBeGreaterThan(0);
      expect(step.flopsQueries).toBeCloseTo(reference.flopsQueries, 3);
      expect(step.lambdaQueries).toBe(L1);
      const saved = await loadModel(createFolderSource(join(out, 'model', 'document_0_MLMTransformer')));
      // one SGD step: the model at --lr, the table at its own --query-table-lr (the same schedule)
      const sgd = sgdUpdateReference(reference, LR, TABLE_LR);
      expectUpdates(`${arch} trained table`, saved, start, (name) => sgd.params[name]);
      // the table itself: moved by -its lr x its gradient where queries hold a token, special tokens untouched
      const stored = readSafetensors(
        await readFile(join(out, 'model', 'query_0_SparseStaticEmbedding', 'model.safetensors')),
        'q',
      );
      const trained = stored.tensors.get('weight')!.data;
      const tableUpdate = Float64Array.from(trained, (x, i) => x - weights[i]);
      const expectedTable = sgd.queryWeights!;
      const largest = expectedTable.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      expect(largest).toBeGreaterThan(1e-4);
      expectClose(`${arch}: update of the query table`, tableUpdate, expectedTable, { rtol: 2e-3, atol: 3e-7 + 1e-3 * largest });
      for (const id of frozenIds) expect(trained[id]).toBe(0);
      const config = JSON.parse(await readFile(join(out, 'model', 'query_0_SparseStaticEmbedding', 'config.json'), 'utf8'));
      expect(config).toEqual({ frozen: false });
      // the reference's table gradient equals central differences of its total (tokens of the batch's queries)
      const present = [...new Set(batch.queryIds)].filter((id) => !frozenIds.includes(id)).slice(0, 6);
      const eps = 1e-4;
      for (const id of present) {
        const shifted = (delta: number) => {
          const w = Float32Array.from(weights);
          w[id] += delta;
          return spladeTrainingReference(loaded.config, start, batch, {
            ...settings,
            queryWeights: w,
            trainedQueryTable: trainedTable,
          }).total;
        };
        const numeric = (shifted(eps) - shifted(-eps)) / (2 * eps);
        expect(Math.abs(numeric - reference.dqueryWeights![id]), `token ${id}`).toBeLessThan(1e-4 + 1e-3 * Math.abs(numeric));
      }
    },
  );

  it('with AdamW, the first step moves each table weight a query holds by about its own lr (--query-table-lr), the model by about --lr', async () => {
    const { dir } = models.bert;
    const out = join(root, 'table-adamw');
    const [LR_MODEL, LR_TABLE] = [1e-4, 0.02];
    const flags = ['--steps', '1', '--batch', '4', '--lr', String(LR_MODEL), '--warmup-ratio', '0', '--max-grad-norm', '0'];
    flags.push('--dropout', '0', '--no-shuffle', '--query-length', '8', '--doc-length', '12', '--json', '--no-batch-cache');
    flags.push('--inference-free', '--train-query-weights', '--query-table-lr', String(LR_TABLE));
    const result = await runCli('train', '--model', dir, '--triplets', join(root, 'four.tsv'), '--out', out, ...flags);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; recipe?: { inferenceFree: { trained: unknown } }; note?: string });
    const start = events.find((e) => e.event === 'start')!;
    expect(start.recipe!.inferenceFree.trained).toEqual({ l1: 0, lr: LR_TABLE });
    // a table over the 8 documents of four.tsv is noisy: said once, in the run's notes
    expect(events.filter((e) => e.event === 'note' && e.note?.includes('is noisy')).map((e) => e.note)).toEqual([
      'the query table (idf over the 8 documents of four.tsv): IDF over 8 documents is noisy; pass --idf-from <corpus> with at least 1,000 documents',
    ]);
    const initial = table(
      models.bert.loaded,
      parseTriplets(TSV, 'four.tsv').triplets.flatMap((t) => [t.positive, t.negative]),
    );
    const stored = readSafetensors(await readFile(join(out, 'model', 'query_0_SparseStaticEmbedding', 'model.safetensors')), 'q');
    const moves = Array.from(stored.tensors.get('weight')!.data, (w, i) => Math.abs(w - initial[i])).filter((d) => d > 0);
    // AdamW's first update is lr · g / (|g| + eps): lr for every weight with a gradient (the queries' tokens)
    expect(moves.length).toBeGreaterThan(4);
    for (const move of moves) expect(Math.abs(move - LR_TABLE)).toBeLessThan(1e-3 * LR_TABLE + 1e-6);
    const saved = await loadModel(createFolderSource(join(out, 'model', 'document_0_MLMTransformer')));
    const begin = startingPoint(models.bert.loaded, 1);
    const largest = Math.max(
      ...Object.keys(begin).map((name) =>
        Math.max(...Array.from(saved.params.get(name)!.data, (x, i) => Math.abs(x - begin[name][i]))),
      ),
    );
    expect(largest).toBeGreaterThan(0.5 * LR_MODEL);
    expect(largest).toBeLessThan(1.01 * LR_MODEL);
  });

  it('a trained table is kept in checkpoints with its AdamW moments: killed after step 2 and resumed, the run ends as a straight one, bit for bit', async () => {
    const { dir } = models.bert;
    const straight = join(root, 'table-straight');
    const killed = join(root, 'table-killed');
    const args = (out: string) => [
      'train',
      '--model',
      dir,
      '--triplets',
      join(root, 'four.tsv'),
      '--out',
      out,
      '--steps',
      '4',
      '--batch',
      '2',
      '--query-length',
      '8',
      '--doc-length',
      '12',
      '--dropout',
      '0',
      '--no-batch-cache',
      '--checkpoint-every',
      '2',
      '--inference-free',
      '--train-query-weights',
      '--query-l1',
      '0.01',
      '--lr',
      '1e-2',
      '--json',
    ];
    const first = await runCli(...args(straight));
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    await cp(straight, killed, { recursive: true });
    await rm(join(killed, 'checkpoint', 'step-00000004'), { recursive: true });
    await rm(join(killed, 'model'), { recursive: true });
    const record = JSON.parse(await readFile(join(killed, 'run.json'), 'utf8'));
    await writeFile(join(killed, 'run.json'), JSON.stringify({ ...record, id: killed, status: 'running', savedModel: null }));
    const resumed = await runCli(...args(killed), '--resume');
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const tableOf = async (out: string) =>
      readSafetensors(await readFile(join(out, 'model', 'query_0_SparseStaticEmbedding', 'model.safetensors')), 'q').tensors.get(
        'weight',
      )!.data;
    const [straightTable, resumedTable] = [await tableOf(straight), await tableOf(killed)];
    const initial = table(
      models.bert.loaded,
      parseTriplets(TSV, 'four.tsv').triplets.flatMap((t) => [t.positive, t.negative]),
    );
    expect(
      straightTable.some((w, i) => w !== initial[i]),
      'the table trained',
    ).toBe(true);
    expect(Array.from(resumedTable)).toEqual(Array.from(straightTable));
    const documentModel = async (out: string) => readFile(join(out, 'model', 'document_0_MLMTransformer', 'model.safetensors'));
    expect(Buffer.compare(await documentModel(killed), await documentModel(straight))).toBe(0);
  });

  it('the saved Router reads back: encode --side query is the table lookup, --side document the document encoder', async () => {
    const model = join(root, 'bert-data', 'model');
    const input = join(root, 'texts.jsonl');
    const texts = ['cat on a mat', 'the blood of the heart', 'the cat sat on the mat'];
    await writeFile(input, texts.map((text, i) => JSON.stringify({ _id: `t${i}`, text })).join('\n') + '\n');
    const read = async (folder: string, side: string) => {
      const out = join(root, `${side}-${folder.length}.jsonl`);
      const result = await runCli('encode', '--model', folder, '--in', input, '--out', out, '--format', 'qdrant', '--side', side);
      expect(result.code, result.stderr).toBe(0);
      return (await readFile(out, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).vector.splade as { indices: number[]; values: number[] });
    };
    const { loaded } = models.bert;
    const { triplets } = parseTriplets(TSV, 'four.tsv');
    const weights = table(
      loaded,
      triplets.flatMap((t) => [t.positive, t.negative]),
    );
    const queries = await read(model, 'query');
    texts.forEach((text, i) => {
      const ids = [...new Set(loaded.tokenizer.encode(text).ids)].filter((id) => weights[id] > 0).sort((a, b) => a - b);
      expect(queries[i].indices).toEqual(ids);
      expect(queries[i].values).toEqual(ids.map((id) => weights[id]));
    });
    // the run table marks the run inference-free (its lambda_q is unused)
    const table_ = await runCli('runs', join(root, 'bert-data'), '--json');
    expect(JSON.parse(table_.stdout).rows[0]).toMatchObject({ queries: 'static', lambdaQueries: null, loss: 'contrastive' });
    // documents: the Router's document route encodes as its MLMTransformer folder does
    const documents = await read(model, 'document');
    expect(documents).toEqual(await read(join(model, 'document_0_MLMTransformer'), 'document'));
    // the audit of a query-document pair audits the query as looked up: its own tokens, each from its first place
    const audit = await runCli('audit', '--model', model, '--query', texts[0], '--text', texts[2], '--json');
    expect(audit.code, audit.stderr).toBe(0);
    const [pair] = JSON.parse(audit.stdout) as PairAudit[];
    // a static query is tokenized as sentence-transformers' SparseStaticEmbedding does: no special tokens
    const queryIds = loaded.tokenizer.encode(texts[0], { addSpecialTokens: false }).ids;
    expect(pair.query.terms.map((t) => t.id).sort((a, b) => a - b)).toEqual(queries[0].indices);
    for (const term of pair.query.terms) {
      expect(term).toMatchObject({ expansion: false, position: queryIds.indexOf(term.id), weight: weights[term.id] });
    }
    const documentWeight = new Map(documents[2].indices.map((id, j) => [id, documents[2].values[j]]));
    const score = queries[0].indices.reduce((sum, id, j) => sum + queries[0].values[j] * (documentWeight.get(id) ?? 0), 0);
    expect(pair.score).toBeCloseTo(score, 5);
    expect(pair.shared.length).toBeGreaterThan(0);
  });
});

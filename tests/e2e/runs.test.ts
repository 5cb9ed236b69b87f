// End-to-end tests of runs in the BUILT page: a sweep of k = 1 and 4 of the demo backbone on a typed-in TSV, two steps
// each, each run evaluated on a small local BEIR folder; the runs table, the Table-2-like comparison and the scatter
// appear; the hand-off project downloads; a run's model is used as the page's model (the preview, and the head as
// loaded, divided by k and after training); its zip export holds a whole SparseEncoder folder, its ONNX export gives
// that folder's vectors in onnxruntime-node and in onnxruntime-web inside the page's Chromium; the Audit tab compares
// the run with the demo at the run's k (before and after training) as the CLI's audit --against compares the two
// folders; a reload keeps the runs.
// And an inference-free sweep (static IDF queries) of k = 1 and 8, evaluated, marked and compared, one run's exported
// Router folder evaluated by the CLI with the page's figures.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { unzipSync } from 'fflate';
import type * as Ort from 'onnxruntime-node';
import { createFolderSource } from '../../src/io/file-source-node.ts';
import { loadModel } from '../../src/model/load-model.ts';
import type { Page } from 'playwright-core';
import { readSafetensors } from '../../src/io/formats/safetensors.ts';
import type { TextChange } from '../../src/contract/model/expansion-audit.ts';
import { assertNoViolations } from './accessibility.ts';
import { openPage, screenshot } from './browser.ts';
import { smallGeneratedSet } from './datasets.ts';
import { cliStdout } from './cli.ts';
import { useBuiltSite, waitShowing, WAIT } from './site.ts';
import { WORKER_FILE } from '../../src/publish-runtime/static-search.ts';

const TRIPLETS = [
  'what causes tides\tthe moon pulls the sea\tcats sleep a lot',
  'why is the sky blue\tair scatters blue light\tbread needs yeast',
  'how do bees make honey\tbees turn nectar into honey\ttrains run on rails',
  'who wrote hamlet\tshakespeare wrote hamlet\tthe river is wide',
].join('\n');

/** A zip's files (under one top folder) written into `folder`. */
function writeFolder(zip: Record<string, Uint8Array>, folder: string): void {
  for (const [name, bytes] of Object.entries(zip)) {
    if (name.endsWith('/')) continue;
    const path = join(folder, name.slice(name.indexOf('/') + 1));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
  }
}

/** `splade-lab audit --model <model> --k <k> --against <folder> --against-k 1 --json` of `texts`: each text's dims and FLOPS. */
async function cliAuditAgainst(model: string, k: number, folder: string, texts: string[]): Promise<{ perText: TextChange[] }> {
  // the run's saved head holds its k already: the folder is read at k = 1
  const args = [
    'audit',
    '--model',
    model,
    '--k',
    String(k),
    '--against',
    folder,
    '--against-k',
    '1',
    '--max-length',
    '128',
    '--json',
  ];
  return JSON.parse(await cliStdout(...args, ...texts.flatMap((t) => ['--text', t]))) as { perText: TextChange[] };
}

/** `splade-lab encode --format qdrant` of `texts` with the model in `folder`. */
async function cliEncode(folder: string, texts: string[]): Promise<{ indices: number[]; values: number[] }[]> {
  const input = join(folder, 'texts.jsonl');
  const output = join(folder, 'vectors.jsonl');
  writeFileSync(input, texts.map((text, i) => JSON.stringify({ _id: `t${i}`, text })).join('\n') + '\n');
  await cliStdout('encode', '--model', folder, '--in', input, '--out', output, '--format', 'qdrant');
  return readFileSync(output, 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { vector: { splade: { indices: number[]; values: number[] } } }).vector.splade);
}

/** Each text's token ids by the folder's tokenizer (128 at most, as the page encodes). */
async function tokenIds(folder: string, texts: string[]): Promise<number[][]> {
  const { tokenizer } = await loadModel(createFolderSource(folder));
  return texts.map((text) => tokenizer.encode(text, { maxLength: 128 }).ids);
}

/** The ONNX file's vectors of each text (its token ids) in onnxruntime-node, one text per run. */
async function onnxNodeVectors(onnx: Uint8Array, texts: number[][]): Promise<ArrayLike<number>[]> {
  const ort = createRequire(import.meta.url)('onnxruntime-node') as typeof Ort;
  const session = await ort.InferenceSession.create(onnx);
  try {
    const vectors: Float32Array[] = [];
    for (const ids of texts) {
      const result = await session.run({
        input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
        attention_mask: new ort.Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
      });
      vectors.push(result.sparse_vector.data as Float32Array);
    }
    return vectors;
  } finally {
    await session.release();
  }
}

/** Where the page's server puts onnxruntime-web's WebAssembly build and the file under test. */
const ORT_PATH = '/onnx-check/';
const ORT_FILES = ['ort.wasm.min.mjs', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm'];

/**
 * The same in onnxruntime-web (its WebAssembly backend, one thread) inside the page's Chromium: the server gets the
 * runtime and the file, the page fetches and runs them; all texts in one padded batch, so that padding is covered.
 */
async function onnxWebVectors(page: Page, files: Map<string, Uint8Array>, onnx: Uint8Array, texts: number[][]) {
  const dist = join(process.cwd(), 'node_modules', 'onnxruntime-web', 'dist');
  for (const name of ORT_FILES) files.set(ORT_PATH + name, new Uint8Array(readFileSync(join(dist, name))));
  files.set(`${ORT_PATH}model.onnx`, onnx);
  return page.evaluate(
    async ({ base, texts }) => {
      const ort = (await import(`${base}ort.wasm.min.mjs`)) as typeof import('onnxruntime-web');
      ort.env.wasm.wasmPaths = base;
      ort.env.wasm.numThreads = 1;
      const session = await ort.InferenceSession.create(`${base}model.onnx`, { executionProviders: ['wasm'] });
      const T = Math.max(...texts.map((ids) => ids.length));
      const ids = new BigInt64Array(texts.length * T);
      const mask = new BigInt64Array(texts.length * T);
      texts.forEach((row, b) => row.forEach((id, t) => ((ids[b * T + t] = BigInt(id)), (mask[b * T + t] = 1n))));
      const result = await session.run({
        input_ids: new ort.Tensor('int64', ids, [texts.length, T]),
        attention_mask: new ort.Tensor('int64', mask, [texts.length, T]),
      });
      const data = result.sparse_vector.data as Float32Array;
      const V = data.length / texts.length;
      await session.release();
      return texts.map((_, b) => Array.from(data.subarray(b * V, (b + 1) * V)));
    },
    { base: ORT_PATH, texts },
  );
}

describe('the built page: runs', { timeout: 900_000 }, () => {
  let beirDir: string;
  let files: string[];

  before(() => {
    beirDir = mkdtempSync(join(tmpdir(), 'splade-e2e-runs-'));
    files = smallGeneratedSet(beirDir, 1);
  });
  const checkFiles = new Map<string, Uint8Array>();
  const built = useBuiltSite(() => ({ files: checkFiles }));

  after(() => rmSync(beirDir, { recursive: true, force: true }));

  /**
   * On a fresh page: a set read to evaluate on, the four triplets picked, then a sweep of `ks` (two steps each, small
   * lengths, each run evaluated), waited for until it is done; `queries: 'static'` makes its runs inference-free.
   */
  /**
   * Triplets whose documents are the small set's own (a query, a relevant document, another topic's): a static IDF
   * table counted over them weighs the set's query words (a word in no training document weighs 0, as OpenSearch's
   * get_idf.py leaves it out).
   */
  function tripletsOfTheSet(): string {
    const read = (path: string) =>
      readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { _id: string; text: string });
    const [corpus, queries] = [read(files[0]), read(files[1])];
    const relevant = new Map(
      readFileSync(files[2], 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split('\t') as [string, string]),
    );
    return queries
      .map((q) => {
        const positive = corpus.find((d) => d._id === relevant.get(q._id))!;
        const negative = corpus.find((d) => !d._id.startsWith(positive._id.replace(/-\d+$/, '')))!;
        return `${q.text}\t${positive.text}\t${negative.text}`;
      })
      .join('\n');
  }

  async function sweepOfTwoRuns(page: Page, ks: string, options: { queries?: 'static' } = {}): Promise<void> {
    await page.goto(`${built.site}?model=demo&k=1&panel=evaluate`);
    await page.locator('model-picker #model-label').waitFor(WAIT);
    await page.locator('eval-panel dataset-chooser #beir-files').setInputFiles(files);
    await page.locator('eval-panel dataset-chooser #read-sets', { hasText: '12 queries' }).waitFor(WAIT);
    await page.locator('#tab-training').click();
    await page.locator('train-panel #triplets').setInputFiles({
      name: 'tiny.tsv',
      mimeType: 'text/tab-separated-values',
      buffer: Buffer.from(options.queries ? tripletsOfTheSet() : TRIPLETS),
    });
    await page.locator('train-panel #data', { hasText: options.queries ? '12 triplets' : '4 triplets' }).waitFor(WAIT);
    if (options.queries) await page.locator('train-panel #queries').selectOption(options.queries);
    const sweep = page.locator('sweep-panel');
    await sweep.locator('#ks').fill(ks);
    await sweep.locator('#sweep-steps').fill('2');
    await sweep.locator('#sweep-batchSize').fill('2');
    await sweep.locator('#sweep-queryLength').fill('8');
    await sweep.locator('#sweep-documentLength').fill('16');
    await sweep.locator('#sweep-evaluate').check();
    await sweep.locator('#start-sweep').click();
    await sweep
      .locator('#sweep-status', { hasText: 'Done: 2 runs' })
      .or(sweep.locator('#sweep-error'))
      .waitFor({ timeout: 600_000 });
    assert.equal(
      await sweep.locator('#sweep-error').count(),
      0,
      (await sweep.locator('#sweep-error').allTextContents()).join(' '),
    );
  }

  it('a 2-k sweep, evaluated, compared, a run used and exported, and the runs kept over a reload', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await sweepOfTwoRuns(page, '1, 4');
    await screenshot(page, '30-sweep-done');

    // The hand-off: a project for GPUs, as a zip (small sizes, so that its one splade-lab step is quick here).
    const handoff = page.locator('handoff-panel');
    for (const [field, value] of [
      ['gpus', '2'],
      ['batchSize', '2'],
      ['queryLength', '8'],
      ['documentLength', '16'],
    ])
      await handoff.locator(`#handoff-${field}`).fill(value);
    const [project] = await Promise.all([
      page.waitForEvent('download', { timeout: 300_000 }),
      handoff.locator('#handoff').click(),
    ]);
    const projectFiles = Object.keys(unzipSync(new Uint8Array(readFileSync(await project.path())))).map((name) =>
      name.slice(name.indexOf('/') + 1),
    );
    for (const file of [
      'train.py',
      'check_step1.py',
      'expected_step1.json',
      'requirements.txt',
      'launch.sh',
      'README.md',
      'data/tiny.tsv',
    ]) {
      assert.ok(projectFiles.includes(file), `${file} in the hand-off: ${projectFiles.join(', ')}`);
    }

    // The runs table, the comparison and the scatter.
    await page.locator('#tab-runs').click();
    const runs = page.locator('runs-panel');
    await runs.locator('#runs-table tbody tr').nth(1).waitFor(WAIT);
    assert.equal(await runs.locator('#runs-table tbody tr').count(), 2);
    for (const box of await runs.locator('#runs-table tbody input[type="checkbox"]').all()) await box.check();
    const compare = runs.locator('run-compare');
    await compare.locator('#cmp-table tbody tr').nth(1).waitFor(WAIT);
    const ndcg = await compare.locator('#cmp-table td[data-measure="ndcg_cut_10"]').allTextContents();
    assert.ok(
      ndcg.every((v) => /^\d\.\d{4}$/.test(v.trim())),
      `both runs evaluated: ${ndcg}`,
    );
    assert.equal(await compare.locator('scatter-chart g.point').count(), 2, 'one point per run');
    assert.match((await compare.locator('#best-rule').textContent()) ?? '', /highest nDCG@10/);
    assert.equal(await compare.locator('loss-chart#cmp-rank g.series').count(), 2, 'one curve per run');
    await screenshot(page, '31-runs-compare');
    await assertNoViolations(page, 'on the Runs tab comparing two evaluated runs');

    // One run's page: what it trained, its recipe, how it went and its evaluation.
    await runs.locator('#runs-table tbody tr').first().locator('button.details').click();
    const details = runs.locator('#run-page run-details');
    await details.locator('#evaluations tbody tr').first().waitFor(WAIT);
    assert.match(await details.locator('#model').innerText(), /training data\s+\S+: 4 triplets, CRC-32 [0-9a-f]{8}/);
    assert.match(await details.locator('#recipe').innerText(), /peak learning rate/);
    assert.match(await details.locator('#progress').innerText(), /finished/);
    // what the run's watcher saw: its alarms (or none) and its probes, first snapshot against the last
    await details.locator('#run-alarms').waitFor(WAIT);
    assert.equal(await details.locator('#run-probes .card').count(), 4, 'the four default probes');
    assert.match(
      (await details.locator('#run-probes #probe-step').textContent()) ?? '',
      /Probes at step \d+, compared with step 0/,
    );
    await screenshot(page, '32-run-details');
    await runs.locator('#run-page button.close-details').click();

    // The model of a run, exported as a zip of its SparseEncoder folder.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      runs.locator('#runs-table tbody tr').first().locator('button.export-model').click(),
    ]);
    const zip = unzipSync(new Uint8Array(readFileSync(await download.path())));
    const names = Object.keys(zip).map((name) => name.slice(name.indexOf('/') + 1));
    for (const file of [
      'config.json',
      'model.safetensors',
      'modules.json',
      '1_SpladePooling/config.json',
      'README.md',
      'vocab.txt',
    ])
      assert.ok(names.includes(file), `${file} in ${names.join(', ')}`);

    // ... and as one ONNX file (pooling inside): in onnxruntime-node and in the page's onnxruntime-web it gives what
    // the CLI's encode gives of the zip's folder
    const [onnxDownload] = await Promise.all([
      page.waitForEvent('download'),
      runs.locator('#runs-table tbody tr').first().locator('button.export-onnx').click(),
    ]);
    assert.match(onnxDownload.suggestedFilename(), /\.onnx$/);
    const folder = join(beirDir, 'run-model');
    writeFolder(zip, folder);
    const texts = ['what causes tides', 'the moon pulls the sea and the river is wide'];
    const encoded = await cliEncode(folder, texts);
    const onnx = new Uint8Array(readFileSync(await onnxDownload.path()));
    const ids = await tokenIds(folder, texts);
    const runtimes = {
      'onnxruntime-node': await onnxNodeVectors(onnx, ids),
      'onnxruntime-web': await onnxWebVectors(page, checkFiles, onnx, ids),
    };
    for (const [runtime, vectors] of Object.entries(runtimes))
      texts.forEach((_, i) => {
        const dense = new Float64Array(vectors[i].length);
        encoded[i].indices.forEach((id, j) => (dense[id] = encoded[i].values[j]));
        const largest = Array.from(vectors[i]).reduce((m, x, v) => Math.max(m, Math.abs(x - dense[v])), 0);
        assert.ok(largest <= 1e-5, `text ${i}: ONNX in ${runtime} against encode, largest difference ${largest}`);
      });

    // The Audit tab: the demo at the run's k against the run's trained model, as the CLI compares the two folders.
    // (sent there from the run's page, which sets both sides)
    const exported = (await runs.locator('#runs-table tbody tr').first().getAttribute('data-run')) ?? '';
    await runs.locator('#runs-table tbody tr').first().locator('button.details').click();
    await runs.locator('#run-page button.audit-run').click();
    const audit = page.locator('audit-panel');
    await audit.locator('#audit-texts').fill(texts.join('\n'));
    await audit.locator(`#diff-model-b option[value="${exported}"]`).waitFor({ state: 'attached', ...WAIT });
    assert.equal(await audit.locator('#diff-model-b').inputValue(), exported, 'the run is the second side');
    assert.equal(await audit.locator('#diff-model-a').inputValue(), '', 'the loaded model the first');
    const runK = Number(await audit.locator('#diff-k1').inputValue());
    const chosen = (await audit.locator(`#diff-model-b option[value="${exported}"]`).textContent()) ?? '';
    assert.ok(chosen.includes(`trained at k = ${runK},`), `the loaded model at the run's k: ${runK}, ${chosen}`);
    await audit.locator('#diff-run').click();
    await audit.locator('#audit-status', { hasText: 'Done: 2 texts compared' }).waitFor(WAIT);
    const perText = await page
      .locator('audit-diff-report #diff-per-text tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number((td as HTMLElement).dataset.value))),
      );
    const fromCli = (await cliAuditAgainst(join(process.cwd(), 'public', 'demo'), runK, folder, texts)).perText;
    fromCli.forEach((row, i) => {
      const [, dims, againstDims, , flops, againstFlops] = perText[i];
      assert.ok(
        Math.abs(dims - row.activeDims) <= 1 && Math.abs(againstDims - row.againstActiveDims) <= 1,
        `text ${i}: dims ${dims} against ${againstDims} on the page (${chosen}), ${row.activeDims} against ${row.againstActiveDims} by the CLI`,
      );
      for (const [page_, cli] of [
        [flops, row.flops],
        [againstFlops, row.againstFlops],
      ])
        assert.ok(Math.abs(page_ - cli) <= 1e-4 * Math.max(1, cli), `text ${i}: FLOPS ${page_} on the page, ${cli} by the CLI`);
    });
    await screenshot(page, '38-audit-run-against-base', audit);
    await page.locator('#tab-runs').click();

    // Using a run's model: the picker names it, and the preview encodes with it.
    await runs.locator('#runs-table tbody tr').first().locator('button.use').click();
    await page.locator('model-picker #model-label', { hasText: 'trained run' }).waitFor(WAIT);
    await page.locator('#tab-preview').click();
    await page.locator('preview-panel #score').waitFor(WAIT);
    await screenshot(page, '33-run-used');
    // ... and the head-norm view overlays its head as loaded, divided by the run's k, and after training.
    await page.locator('#tab-norms').click();
    const histogram = page.locator('head-norm-panel norm-histogram');
    await histogram.locator('g[data-series="trained"] rect').first().waitFor(WAIT);
    for (const series of ['before', 'after', 'trained'])
      assert.ok((await histogram.locator(`g[data-series="${series}"] rect`).count()) > 0, `${series} bars`);
    assert.match(
      await page.locator('head-norm-panel #run-heads').innerText(),
      /as loaded .*divided by\s+k = \d+.*after training/s,
    );
    await screenshot(page, '34-run-heads');
    const [svgFile] = await Promise.all([page.waitForEvent('download'), histogram.locator('chart-download button.svg').click()]);
    assert.equal(svgFile.suggestedFilename(), 'run-head-norms.svg');
    assert.match(
      readFileSync(await svgFile.path(), 'utf8'),
      /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"[\s\S]*data-series="trained"/,
    );

    // A reload keeps the runs.
    await page.goto(`${built.site}?model=demo&panel=runs`);
    await page.locator('runs-panel #runs-table tbody tr').nth(1).waitFor(WAIT);
    await context.close();
  });

  it('an inference-free 2-k sweep: static IDF queries, each run evaluated, marked and compared', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await sweepOfTwoRuns(page, '1, 8', { queries: 'static' });
    await page.locator('#tab-runs').click();
    const runs = page.locator('runs-panel');
    await runs.locator('#runs-table tbody tr').nth(1).waitFor(WAIT);
    assert.equal(await runs.locator('#runs-table .inference-free').count(), 2, 'both runs marked inference-free');
    for (const box of await runs.locator('#runs-table tbody input[type="checkbox"]').all()) await box.check();
    const compare = runs.locator('run-compare');
    await compare.locator('#cmp-table tbody tr').nth(1).waitFor(WAIT);
    const ndcg = await compare.locator('#cmp-table td[data-measure="ndcg_cut_10"]').allTextContents();
    assert.ok(
      ndcg.every((v) => /^\d\.\d{4}$/.test(v.trim())),
      `both runs evaluated: ${ndcg}`,
    );
    assert.equal(await compare.locator('#cmp-table .inference-free').count(), 2, 'the comparison names them inference-free');
    // the queries were the table's: one or a few tokens each, never a model's expansion
    const active = await compare.locator('#cmp-table td[data-measure="active_dims"]').allTextContents();
    assert.ok(
      active.every((v) => Number(v.split('/')[0]) > 0 && Number(v.split('/')[0]) < 12),
      `static queries have as many dimensions as tokens: ${active}`,
    );
    await screenshot(page, '35-inference-free-compare');

    // A run's model exported (a Router folder) and evaluated by the CLI: the page's figures to 4 decimals.
    const row = runs.locator('#runs-table tbody tr').first();
    const runId = await row.getAttribute('data-run');
    const [download] = await Promise.all([page.waitForEvent('download'), row.locator('button.export-model').click()]);
    const folder = join(beirDir, 'inference-free-model');
    writeFolder(unzipSync(new Uint8Array(readFileSync(await download.path()))), folder);
    assert.ok(existsSync(join(folder, 'router_config.json')), 'the export is a Router folder');
    const cliMetrics = JSON.parse(await cliStdout('eval', '--model', folder, '--beir', beirDir, '--json')) as Record<
      string,
      number
    >;
    const pageRow = compare.locator(`#cmp-table tr[data-run="${runId}"]`);
    const cells = await pageRow.locator('td').allTextContents();
    // columns: run, k, nDCG@10, MRR@10, R@1000, ...
    assert.deepEqual(
      cells.slice(2, 5).map((v) => v.trim()),
      [cliMetrics.ndcg_cut_10, cliMetrics.recip_rank_10, cliMetrics.recall_1000].map((v) => v.toFixed(4)),
      'the page and the CLI evaluate the exported inference-free model alike',
    );
    // ... and its postings per query (p50 / p99) are what index-stats counts from the same folder
    const cliIndex = JSON.parse(await cliStdout('index-stats', '--model', folder, '--beir', beirDir, '--json')) as {
      queryPostings: { p50: number; p99: number };
      curve: { ndcg_cut_10: number; meanQueryPostings: number }[];
    };
    const count = (n: number) => Math.round(n).toLocaleString('en-US');
    assert.equal(
      (await pageRow.locator('td[data-measure="query_postings_p50_p99"]').textContent())?.trim(),
      `${count(cliIndex.queryPostings.p50)} / ${count(cliIndex.queryPostings.p99)}`,
    );
    // ... and its pruning curve (kept by the page's evaluation) is index-stats' curve, point by point
    const pageCurve = await compare
      .locator(`#cmp-pruning tr[data-run="${runId}"] td[data-rule]`)
      .evaluateAll((tds) => tds.map((td) => [Number(td.getAttribute('data-ndcg')), Number(td.getAttribute('data-postings'))]));
    assert.equal(pageCurve.length, cliIndex.curve.length, 'one cell per curve point');
    cliIndex.curve.forEach((point, i) => {
      assert.equal(pageCurve[i][0].toFixed(4), point.ndcg_cut_10.toFixed(4), `point ${i}: nDCG@10`);
      assert.ok(
        Math.abs(pageCurve[i][1] - point.meanQueryPostings) <= 1e-9 * Math.max(1, point.meanQueryPostings),
        `point ${i}: postings`,
      );
    });

    // The run used as the page's model: a search shows the query's static weights (the exported table's), a lookup.
    await row.locator('button.use').click();
    await page.locator('model-picker #model-label', { hasText: 'trained run' }).waitFor(WAIT);
    await page.locator('#tab-evaluate').click();
    await page.locator('eval-panel #evaluate').click();
    await page.locator('eval-panel #eval-status', { hasText: 'Done: ' }).waitFor({ timeout: 300_000 });
    const [firstQuery] = readFileSync(files[1], 'utf8').trim().split('\n');
    await page.locator('eval-panel search-view #query').fill((JSON.parse(firstQuery) as { text: string }).text);
    await page.locator('eval-panel search-view button[type="submit"]').click();
    const queryVector = page.locator('eval-panel search-view #query-vector');
    await waitShowing(queryVector, page.locator('eval-panel search-view'));
    assert.equal(await queryVector.getAttribute('data-static'), 'yes', 'said to be the static table');
    assert.match(await page.locator('eval-panel search-view #query-ms').innerText(), /^\d+\.\d+ ms$/);
    const staticDir = join(folder, 'query_0_SparseStaticEmbedding');
    const table = readSafetensors(readFileSync(join(staticDir, 'model.safetensors')), 'weight').tensors.get('weight')!.data;
    const vocab = readFileSync(join(staticDir, 'vocab.txt'), 'utf8').split('\n');
    const shown = await queryVector
      .locator('.qterm')
      .evaluateAll((spans) => spans.map((s) => [s.getAttribute('data-term')!, Number(s.getAttribute('data-weight'))] as const));
    assert.ok(shown.length > 0, 'the query has terms');
    for (const [term, weight] of shown) assert.equal(weight, table[vocab.indexOf(term)], `the static weight of ${term}`);
    await screenshot(page, '36-inference-free-search');

    // Published as a static search from the kept vectors: its report, the folder as a zip, and the search tried here.
    const publish = page.locator('eval-panel publish-search');
    await publish.locator('#publish').click();
    await waitShowing(publish.locator('#publish-report'), publish);
    const transfer = publish.locator('#publish-transfer');
    const [p50, p90] = [Number(await transfer.getAttribute('data-p50')), Number(await transfer.getAttribute('data-p90'))];
    assert.ok(p50 > 0 && p90 >= p50, `bytes per cold search: p50 ${p50}, p90 ${p90}`);
    const quality = publish.locator('#publish-quality');
    for (const measure of ['data-exact', 'data-published']) {
      const value = Number(await quality.getAttribute(measure));
      assert.ok(value >= 0 && value <= 1, `${measure} ${value}`);
    }
    const [zip] = await Promise.all([page.waitForEvent('download'), publish.locator('#publish-download').click()]);
    const published = unzipSync(new Uint8Array(readFileSync(await zip.path())));
    const zipFolder = zip.suggestedFilename().replace(/\.zip$/, '');
    for (const file of ['manifest.json', 'search.json', 'index.html', 'splade-search.js', WORKER_FILE])
      assert.ok(
        published[`${zipFolder}/${file}`],
        `${file} in the published zip: ${Object.keys(published).slice(0, 8).join(', ')}`,
      );
    const runtime = new TextDecoder().decode(published[`${zipFolder}/splade-search.js`]);
    assert.doesNotMatch(runtime, /\bimport\s*[{*\w]/, 'the runtime is one module that imports nothing');
    const manifest = JSON.parse(new TextDecoder().decode(published[`${zipFolder}/manifest.json`])) as {
      model: { k: number; inferenceFree: boolean };
      corpus: { documents: number };
    };
    const documents = readFileSync(files[0], 'utf8').trim().split('\n').length;
    assert.deepEqual([manifest.model.inferenceFree, manifest.corpus.documents], [true, documents]);
    assert.ok([1, 8].includes(manifest.model.k), `the used run's k: ${manifest.model.k}`);
    const preview = publish.locator('splade-search');
    await preview.locator('input[type="search"]').fill((JSON.parse(firstQuery) as { text: string }).text);
    await preview.locator('input[type="search"]').press('Enter');
    await preview.locator('.status', { hasText: /documents match|No document matches|failed|could not/ }).waitFor(WAIT);
    assert.match((await preview.locator('.status').textContent()) ?? '', /documents match/, 'the preview finds hits');
    await screenshot(page, '37-published-search-preview', publish);
    await context.close();
  });
});

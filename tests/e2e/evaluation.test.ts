// End-to-end tests of the BUILT page's Evaluate panel in headless Chromium: a small BEIR folder of generated topics is
// picked, the demo backbone is evaluated at k = 1 and k = 4 beside BM25, the table equals `splade-lab eval --json` and
// `splade-lab bm25 --json` on the same folder, the downloaded TREC run equals the CLI's and the document vectors load,
// a search's term products sum to its score, results come back after a reload, and a cancel mid-encoding keeps no
// half result.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertNoViolations } from './accessibility.ts';
import { openPage, screenshot } from './browser.ts';
import { cliStdout } from './cli.ts';
import { nanoBeirTables, smallGeneratedSet } from './datasets.ts';
import { useBuiltSite, waitShowing, WAIT } from './site.ts';

/** Tokens per text: small, so that SwiftShader encodes the set in seconds. */
const LENGTHS = { query: 16, document: 48 };
const MEASURES = ['ndcg_cut_10', 'recip_rank_10', 'recall_100', 'recall_1000', 'map'] as const;

/** A TREC run's lines as [query, document, rank, score], in file order. */
function trecLines(text: string): [string, string, number, number][] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [query, , doc, rank, score] = line.split(/\s+/);
      return [query, doc, Number(rank), Number(score)];
    });
}

/** The file the page hands over when `button` is clicked. */
async function download(page: Page, button: string): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.locator(button).click()]);
  return readFileSync(await file.path(), 'utf8');
}

/** The CLI's JSON for these arguments, computed once per run of this file (the same evaluation is asked twice). */
async function cli(...args: string[]): Promise<Record<string, number>> {
  const key = JSON.stringify(args);
  let stdout = CLI_OUTPUTS.get(key);
  if (stdout === undefined) CLI_OUTPUTS.set(key, (stdout = await cliStdout(...args)));
  return JSON.parse(stdout);
}
const CLI_OUTPUTS = new Map<string, string>();

/** The table's value of one measure in the row of a system ("splade" at k, or "bm25"). */
async function cell(page: Page, table: string, system: 'splade' | 'bm25', measure: string, k?: number): Promise<number> {
  const row = system === 'splade' ? `tr.splade[data-k="${k}"]` : 'tr.bm25';
  return Number(
    await page.locator(`eval-panel eval-results-table#${table} ${row} td[data-measure="${measure}"]`).first().textContent(),
  );
}

describe('the built page: evaluation', { timeout: 900_000 }, () => {
  let beirDir: string;
  let files: string[];
  /** The same queries over documents of 8 generated ones each: long enough to cancel an encoding half-way. */
  let longFiles: string[];

  before(() => {
    beirDir = mkdtempSync(join(tmpdir(), 'splade-e2e-beir-'));
    files = smallGeneratedSet(beirDir, 1);
    longFiles = smallGeneratedSet(join(beirDir, 'long'));
  });
  const built = useBuiltSite(() => ({ hubRepos: new Map([['datasets/zeta-alpha-ai/NanoSciFact', nanoBeirTables(beirDir)]]) }));

  after(() => rmSync(beirDir, { recursive: true, force: true }));

  /**
   * Waits for the evaluation to end with `done` in its status (or an error shown), logging each new status with its
   * time, so that a slow or stalled evaluation shows where it was; a screenshot is kept when it times out.
   */
  async function waitForEvaluation(page: Page, done: string, timeout: number): Promise<void> {
    const start = Date.now();
    let last = '';
    const watch = setInterval(() => {
      page
        .locator('eval-panel #eval-status')
        .textContent({ timeout: 1000 })
        .then(
          (text) => {
            if (text && text !== last)
              console.log(`[eval status +${((Date.now() - start) / 1000).toFixed(0)} s] ${(last = text)}`);
          },
          () => undefined,
        );
    }, 2000);
    try {
      await page
        .locator('eval-panel #eval-status', { hasText: done })
        .or(page.locator('eval-panel #eval-error'))
        .waitFor({ timeout });
    } catch (error) {
      // where it stalled: a page whose main thread no longer answers, or a worker that never finished the job
      const answers = await Promise.race([
        page
          .evaluate(() => document.readyState)
          .then(
            () => 'answers',
            () => 'fails',
          ),
        new Promise((ok) => setTimeout(() => ok('does not answer within 5 s'), 5000)),
      ]);
      await screenshot(page, `eval-timeout-${Date.now()}`).catch(() => undefined);
      throw new Error(`${(error as Error).message}\nlast status: "${last}"; the page's main thread ${answers}`, { cause: error });
    } finally {
      clearInterval(watch);
    }
    assert.equal(
      await page.locator('eval-panel #eval-error').count(),
      0,
      (await page.locator('eval-panel #eval-error').allTextContents()).join(' '),
    );
  }

  /**
   * On a fresh page, clicks Evaluate and waits for the job's status line. A click that started nothing (once in this
   * session's suite runs on a loaded 2-core machine: the status stayed empty for 2 minutes, the button enabled, the page
   * answering) is said in the log and made again, so that the log shows it where it happens.
   */
  async function clickEvaluate(page: Page): Promise<void> {
    const status = page.locator('eval-panel #eval-status');
    const started = async () => ((await status.textContent()) ?? '').trim() !== '';
    await page.locator('eval-panel #evaluate').click();
    for (const deadline = Date.now() + 10_000; !(await started()) && Date.now() < deadline;) await page.waitForTimeout(200);
    if (await started()) return;
    console.log('[e2e] the click on Evaluate started no job within 10 s: clicking again');
    await page.locator('eval-panel #evaluate').click();
  }

  async function evaluateAt(page: Page, k: number): Promise<void> {
    await page.locator('k-control #number').fill(String(k));
    await page.locator('k-control #number').press('Enter');
    const evaluate = page.locator('eval-panel #evaluate');
    await page.waitForFunction(
      (want) =>
        document
          .querySelector('splade-app')
          ?.shadowRoot?.querySelector('eval-panel')
          ?.shadowRoot?.querySelector('#evaluate')
          ?.textContent?.includes(`k = ${want}`),
      k,
      WAIT,
    );
    await evaluate.click();
    // a whole set encoded on SwiftShader: about 15 s alone
    await waitForEvaluation(page, 'Done: ', 300_000);
    await page.locator(`eval-panel eval-results-table#latest tr.splade[data-k="${k}"]`).waitFor(WAIT);
  }

  async function pickSet(page: Page, set = files): Promise<void> {
    await page.locator('eval-panel dataset-chooser #beir-files').setInputFiles(set);
    await page.locator('eval-panel dataset-chooser #read-sets', { hasText: '12 queries' }).waitFor(WAIT);
    await page.locator('eval-panel #queryLength').fill(String(LENGTHS.query));
    await page.locator('eval-panel #documentLength').fill(String(LENGTHS.document));
  }

  it('evaluates the demo backbone at k = 1 and k = 4 beside BM25, equal to the CLI; search terms sum to the score; results survive a reload', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=demo&k=1&panel=evaluate`);
    await page.locator('model-picker #model-label').waitFor(WAIT);
    await pickSet(page);
    await screenshot(page, '20-eval-set-read');
    const cliRun = join(beirDir, 'cli-k4.trec');
    let cliAt4: Record<string, unknown> = {};
    for (const k of [1, 4]) {
      await evaluateAt(page, k);
      const runArgs = k === 4 ? ['--run', cliRun] : [];
      const expected = await cli(
        'eval',
        '--model',
        'public/demo',
        '--beir',
        beirDir,
        '--json',
        '--k',
        String(k),
        '--query-length',
        String(LENGTHS.query),
        '--doc-length',
        String(LENGTHS.document),
        ...runArgs,
      );
      if (k === 4) cliAt4 = expected;
      for (const m of MEASURES)
        assert.equal((await cell(page, 'latest', 'splade', m, k)).toFixed(4), expected[m].toFixed(4), `k = ${k} ${m}`);
    }
    // The index and latency estimate of the kept k = 4 vectors: the curve's points, its unpruned one the evaluation.
    const estimate = page.locator('eval-panel index-estimate');
    await estimate.locator('#curve tr[data-rule="all"]').waitFor(WAIT);
    const points = await estimate.locator('#curve tbody tr').count();
    assert.ok(points >= 6, `${points} points on the pruning curve`);
    const allNdcg = Number(
      await estimate.locator('#curve tr[data-rule="all"] td[data-measure="ndcg_cut_10"]').getAttribute('data-value'),
    );
    assert.equal(allNdcg.toFixed(4), (await cell(page, 'latest', 'splade', 'ndcg_cut_10', 4)).toFixed(4), 'unpruned nDCG@10');
    const perQuery = await estimate
      .locator('#index-facts tr[data-fact="query-postings"] td[data-value]')
      .evaluateAll((cells) => cells.map((c) => Number(c.getAttribute('data-value'))));
    assert.ok(perQuery.length === 3 && perQuery.every((v) => v > 0), `mean, p50, p99 postings per query: ${perQuery}`);
    // the mean is documents * avg_flops (what the runs view shows from stored evaluations), here the CLI's
    const { efficiency, index } = cliAt4 as { efficiency: { avg_flops: number }; index: { documents: number } };
    const fromFlops = index.documents * efficiency.avg_flops;
    assert.ok(Math.abs(perQuery[0] - fromFlops) <= 1e-3 * fromFlops, `mean postings per query ${perQuery[0]} vs ${fromFlops}`);
    await estimate.scrollIntoViewIfNeeded();
    await screenshot(page, '22-index-estimate');

    // The evaluated set taken away: SPLADE's TREC run equals the CLI's; the document vectors are Anserini's JSONL.
    const pageRun = trecLines(await download(page, 'eval-panel eval-exports button[data-format="trec"]'));
    const expectedRun = trecLines(readFileSync(cliRun, 'utf8'));
    assert.equal(pageRun.length, expectedRun.length, 'run lines');
    pageRun.forEach(([q, d, rank, score], i) => {
      const [eq, ed, erank, escore] = expectedRun[i];
      assert.deepEqual([q, d, rank], [eq, ed, erank], `run line ${i + 1}`);
      assert.ok(
        Math.abs(score - escore) <= 1e-4 * Math.max(1, Math.abs(escore)),
        `run line ${i + 1}: score ${score} vs ${escore}`,
      );
    });
    const corpusIds = readFileSync(files[0], 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { _id: string })._id);
    const vectors = (await download(page, 'eval-panel eval-exports button[data-format="anserini"]'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; vector: Record<string, number> });
    assert.deepEqual(
      vectors.map((v) => v.id),
      corpusIds,
      'one vector per document, in corpus order',
    );
    for (const v of vectors)
      assert.ok(
        Object.values(v.vector).length > 0 && Object.values(v.vector).every((w) => Number.isInteger(w) && w > 0),
        `integer impacts of ${v.id}`,
      );
    const bm25 = await cli('bm25', '--beir', beirDir, '--json');
    for (const m of MEASURES) assert.equal((await cell(page, 'latest', 'bm25', m)).toFixed(4), bm25[m].toFixed(4), `BM25 ${m}`);
    await screenshot(page, '21-eval-results');

    // Search: the first judged query; each hit's term products add up to its score.
    const queries = JSON.parse(`[${readFileSync(files[1], 'utf8').trim().split('\n').join(',')}]`) as { text: string }[];
    await page.locator('eval-panel search-view #query').fill(queries[0].text);
    await page.locator('eval-panel search-view button[type="submit"]').click();
    const firstHit = page.locator('eval-panel search-view #splade-hits li').first();
    await waitShowing(firstHit, page.locator('eval-panel search-view'));
    assert.match((await page.locator('eval-panel search-view #search-note').textContent()) ?? '', /Judged query/);
    const score = Number(await firstHit.getAttribute('data-score'));
    const products = await firstHit
      .locator('term-table tbody tr')
      .evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-product'))));
    const sum = products.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - score) <= 1e-9 * Math.max(1, score), `term products ${sum} vs score ${score}`);
    assert.ok((await page.locator('eval-panel search-view #bm25-hits li').count()) > 0, 'BM25 hits beside');
    await firstHit.locator('button.open').click();
    await page.locator('eval-panel search-view #opened sparse-terms').waitFor(WAIT);
    // which input token of the opened document caused each term (k = 4, as the set was encoded last)
    await page.locator('eval-panel search-view #audit-opened').click();
    const origins = page.locator('eval-panel search-view #opened-origins');
    await origins.locator('#by-token li').first().waitFor(WAIT);
    const [, activeTerms] =
      /(\d+) active terms at k = 4/.exec((await origins.locator('#origins-summary').textContent()) ?? '') ?? [];
    const caused = await origins
      .locator('#by-token li')
      .evaluateAll((items) => items.map((li) => Number(li.getAttribute('data-terms'))));
    assert.equal(
      caused.reduce((a, b) => a + b, 0),
      Number(activeTerms),
      'every active term was caused by exactly one input token',
    );
    // ... and of the terms it shares with the query: their products sum to the hit's score (encoded again, alike)
    const pairScore = Number(
      await page.locator('eval-panel search-view #opened-shared #pair-summary').getAttribute('data-score', WAIT),
    );
    assert.ok(Math.abs(pairScore - score) <= 1e-4 * Math.max(1, score), `shared terms ${pairScore} vs the hit's score ${score}`);
    await screenshot(page, '22-search-pair-origins', page.locator('eval-panel search-view #opened'));
    await assertNoViolations(page, 'on the Evaluate tab with results, the index estimate and a search hit opened');
    await page.locator('eval-panel eval-differences li').first().waitFor(WAIT);
    await screenshot(page, '22-eval-search');
    // The Audit tab takes the evaluated set's documents as its texts, one per line.
    await page.locator('#tab-audit').click();
    await page.locator('audit-panel #audit-use-set').click();
    const taking = page.locator('audit-panel #audit-status', { hasText: 'Texts: the first' });
    await taking.waitFor(WAIT);
    const [, taken, total] = /the first (\d+) of the (\d+) documents/.exec((await taking.textContent()) ?? '') ?? [];
    const lines = (await page.locator('audit-panel #audit-texts').inputValue()).split('\n');
    assert.ok(Number(taken) > 0 && Number(taken) === Math.min(200, Number(total)), `${taken} of ${total} documents`);
    assert.equal(lines.length, Number(taken), 'one document per line');
    await page.locator('#tab-evaluate').click();

    // The stored results come back after a reload.
    const shown = await Promise.all(MEASURES.map((m) => cell(page, 'latest', 'splade', m, 4)));
    await page.reload();
    await page.locator('model-picker #model-label').waitFor(WAIT);
    await page.locator('eval-panel eval-results-table#saved tr.splade[data-k="4"]').waitFor(WAIT);
    const stored = await Promise.all(MEASURES.map((m) => cell(page, 'saved', 'splade', m, 4)));
    assert.deepEqual(stored, shown, 'the stored k = 4 row after a reload is the one shown before it');
    assert.ok((await page.locator('eval-panel eval-results-table#saved tr.splade').count()) >= 2, 'both ks stored');
    await context.close();
  });

  it('a cancel mid-encoding says so and keeps no half result', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=demo&k=2&panel=evaluate`);
    await page.locator('model-picker #model-label').waitFor(WAIT);
    await pickSet(page, longFiles);
    await page.locator('eval-panel #documentLength').fill('128'); // the demo's longest: slow enough to cancel
    const before = await page.locator('eval-panel eval-results-table#saved tr.splade[data-k="2"]').count();
    await page.locator('eval-panel #evaluate').click();
    await page.locator('eval-panel #eval-status', { hasText: /encoding documents [1-9]/ }).waitFor(WAIT);
    await page.locator('eval-panel #cancel-eval').click();
    await page.locator('eval-panel #eval-status', { hasText: 'Cancelled: nothing of this evaluation was kept.' }).waitFor(WAIT);
    assert.equal(await page.locator('eval-panel eval-results-table#latest').count(), 0, 'no result shown');
    await page.reload();
    await page.locator('model-picker #model-label').waitFor(WAIT);
    await page.waitForTimeout(1000);
    assert.equal(
      await page.locator('eval-panel eval-results-table#saved tr.splade[data-k="2"]').count(),
      before,
      'nothing stored',
    );
    await context.close();
  });

  it("reads a NanoBEIR set from the Hub (here a local server in its layout, once the link's address is accepted) and evaluates it", async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=demo&k=1&panel=evaluate&hub=${encodeURIComponent(`${built.server.origin}/hub`)}`);
    await page.locator('notice-banner#hub-notice button[data-action="hub-accept"]').click();
    await page.locator('model-picker #model-label').waitFor(WAIT);
    const chooser = page.locator('eval-panel dataset-chooser');
    await chooser.locator('input[value="SciFact"]').check();
    await chooser.locator('#read-nanobeir').click();
    await chooser.locator('#read-sets', { hasText: 'NanoSciFact: 12 queries' }).waitFor(WAIT);
    assert.ok(
      built.server.requests.includes('/hub/datasets/zeta-alpha-ai/NanoSciFact/resolve/main/qrels/train-00000-of-00001.parquet'),
    );
    await page.locator('eval-panel #queryLength').fill(String(LENGTHS.query));
    await page.locator('eval-panel #documentLength').fill(String(LENGTHS.document));
    await clickEvaluate(page);
    await waitForEvaluation(page, 'Done: NanoSciFact', WAIT.timeout);
    // the same arguments as the first test's k = 1 evaluation, so its output is reused
    const expected = await cli(
      'eval',
      '--model',
      'public/demo',
      '--beir',
      beirDir,
      '--json',
      '--k',
      '1',
      '--query-length',
      String(LENGTHS.query),
      '--doc-length',
      String(LENGTHS.document),
    );
    assert.equal(
      (await cell(page, 'latest', 'splade', 'ndcg_cut_10', 1)).toFixed(4),
      expected.ndcg_cut_10.toFixed(4),
      'NanoBEIR Parquet and the BEIR folder are the same data',
    );
    await screenshot(page, '23-eval-nanobeir');
    await context.close();
  });
});

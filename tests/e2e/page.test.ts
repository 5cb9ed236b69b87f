// End-to-end tests of the BUILT page (dist/) in headless Chromium, served under a sub-path from 127.0.0.1 only:
// the demo's histogram, k dividing the statistics, the URL state, the preview, the Hub-id path, failures, a download
// cancelled half-way, a lost GPU device, the Training panel (teaching demo; real training with checkpoints).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { writeSafetensors } from '../../src/io/safetensors.ts';
import { makeTinyCheckpoint } from '../../src/model/tiny-model.ts';
import { launchChromium, openPage, screenshot } from './browser.ts';
import { startTestServer, type TestServer } from './static-server.ts';

const SITE_PATH = '/deep/sub/path/';
const HUB_REPO = 'e2e-org/tiny-bert';
const HUB_HEAD_NORM = 3;
/** The same tiny checkpoint, served so slowly (about 6 s for its weights) that it can be cancelled half-way. */
const SLOW_REPO = 'e2e-org/slow-bert';
const SLOW_DOWNLOAD_CHUNKS = 24;
const SLOW_CHUNK_DELAY_MS = 250;
/** A config whose vocabulary matrix (4M x 1024 fp32 = 16 GiB) no device binding allows; it has no weights at all. */
const HUGE_REPO = 'e2e-org/huge-vocab';
const HUGE_CONFIG = { architectures: ['BertForMaskedLM'], model_type: 'bert', vocab_size: 1_000_000, hidden_size: 1024, num_hidden_layers: 1, num_attention_heads: 16, intermediate_size: 4096 };
const STATS = ['mean', 'max', 'p50', 'p99', 'std'] as const;
/** The GPU on SwiftShader is slow: allow each wait this long. */
const WAIT = { timeout: 120_000 };

function tinyHubRepo(): Map<string, Uint8Array> {
  const { config, tensors } = makeTinyCheckpoint('bert', { seed: 7, vocabSize: 300, hidden: 16, layers: 1, heads: 2, intermediate: 32, headNormScale: HUB_HEAD_NORM });
  const text = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...Array.from({ length: 295 }, (_, i) => `w${i}`)].join('\n');
  return new Map([
    ['config.json', text(config)],
    ['model.safetensors', writeSafetensors(tensors)],
    ['vocab.txt', text(vocab)],
  ]);
}

/** The shown value of one statistic in the k = 1 column ("1") or the k column ("after"). */
async function stat(page: Page, key: string, column: '1' | 'after'): Promise<number> {
  return Number(await page.locator(`head-stats-table tr[data-stat="${key}"] td[data-k="${column}"]`).textContent());
}

/** The id of the element that has the keyboard focus, looking into shadow roots. */
function focusedId(page: Page): Promise<string> {
  return page.evaluate(() => {
    let element = document.activeElement;
    while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement;
    return element?.id ?? '';
  });
}

/** Polls a condition on the test's side (e.g. what the server saw). */
async function until(what: string, condition: () => boolean): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > WAIT.timeout) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The first value a loss chart's text summary gives for a series ("k = 1: 1234 at step 1, …"). */
async function firstValue(page: Page, chart: string, series: string): Promise<number> {
  const text = (await page.locator(`${chart} #summary li[data-series="${series}"]`).textContent()) ?? '';
  const match = new RegExp(`${series}: (\\S+) at step 1[,.]`).exec(text.replace(/\s+/g, ' '));
  assert.ok(match, `no first value in "${text}"`);
  return Number(match[1]);
}

/** Tiny training triplets for the demo backbone (its vocabulary is bert-base-uncased's). */
const TRIPLETS = [
  'what causes tides\tthe moon pulls the sea\tcats sleep a lot',
  'why is the sky blue\tair scatters blue light\tbread needs yeast',
  'how do bees make honey\tbees turn nectar into honey\ttrains run on rails',
  'who wrote hamlet\tshakespeare wrote hamlet\tthe river is wide',
].join('\n');

async function waitForK(page: Page, k: number): Promise<void> {
  await page.locator('head-stats-table thead th[data-k="after"]', { hasText: new RegExp(`^\\s*k = ${k}\\s*$`) }).waitFor(WAIT);
  await page.waitForFunction(() => !document.querySelector('splade-app')?.shadowRoot?.querySelector('head-norm-panel')?.hasAttribute('busy'), null, WAIT);
}

describe('the built page', { timeout: 600_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  const offsite: string[] = [];
  let site: string;

  before(async () => {
    const dist = join(process.cwd(), 'dist');
    assert.ok(existsSync(join(dist, 'index.html')) && existsSync(join(dist, 'demo', 'model.safetensors')), 'run `npm run build` first (it generates the demo)');
    const slow = tinyHubRepo();
    const chunkBytes = Math.ceil(slow.get('model.safetensors')!.length / SLOW_DOWNLOAD_CHUNKS);
    server = await startTestServer({
      siteDir: dist,
      sitePath: SITE_PATH,
      hubRepos: new Map([
        [HUB_REPO, tinyHubRepo()],
        [SLOW_REPO, slow],
        [HUGE_REPO, new Map([['config.json', new TextEncoder().encode(JSON.stringify(HUGE_CONFIG))]])],
      ]),
      slowRepos: new Map([[SLOW_REPO, { chunkBytes, chunkDelayMs: SLOW_CHUNK_DELAY_MS }]]),
    });
    site = `${server.origin}${SITE_PATH}`;
    browser = await launchChromium(true);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    assert.deepEqual(offsite, [], 'the page tried to reach the network outside 127.0.0.1');
  });

  it('shows the demo head histogram, divides the statistics by k, and keeps the state in the URL', async () => {
    const { context, page } = await openPage(browser, offsite);
    await page.goto(site);
    await page.locator('norm-histogram svg g[data-series="before"] rect').first().waitFor(WAIT);
    await waitForK(page, 1);
    assert.match(await page.locator('model-picker #model-label').textContent() ?? '', /synthetic demo/);
    const bars = await page.locator('norm-histogram g[data-series="before"] rect').count();
    assert.ok(bars >= 5, `histogram has ${bars} bars`);
    const mean1 = await stat(page, 'mean', '1');
    assert.ok(Math.abs(mean1 - 2.5) < 0.01, `demo mean row norm ${mean1}, expected 2.5`);
    await screenshot(page, '01-demo-k1');

    await page.locator('k-control button', { hasText: 'k = 16' }).click();
    await waitForK(page, 16);
    for (const key of STATS) {
      const [k1, k16] = [await stat(page, key, '1'), await stat(page, key, 'after')];
      assert.ok(Math.abs(k16 - k1 / 16) <= 0.0011, `${key}: ${k16} shown at k = 16, ${k1} / 16 = ${k1 / 16}`);
    }
    assert.equal(await stat(page, 'anisotropy', 'after'), await stat(page, 'anisotropy', '1'), 'anisotropy does not depend on k');
    assert.ok((await page.locator('norm-histogram g[data-series="after"] rect').count()) > 0, 'the k = 16 series is drawn');
    await screenshot(page, '02-demo-k16');

    // Keyboard: the slider moves k by quarter octaves; four presses of ArrowLeft halve it.
    await page.locator('k-control #slider').focus();
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowLeft');
    await waitForK(page, 8);
    assert.ok(Math.abs((await stat(page, 'mean', 'after')) - mean1 / 8) <= 0.0011);
    await screenshot(page, '02b-keyboard-focus-k8');

    await page.locator('head-norm-panel #log-norm').check();
    await page.locator('suggested-k #target').fill('2');
    await page.locator('suggested-k #target').press('Enter');
    await page.waitForFunction(() => location.search.includes('log=1') && location.search.includes('target=2'), null, WAIT);
    await waitForK(page, 8);
    await page.locator('norm-histogram svg text', { hasText: 'row L2 norm' }).filter({ hasText: '(log scale)' }).waitFor(WAIT);
    await screenshot(page, '03-demo-k8-log');
    await page.locator('#tab-preview').click();
    await page.locator('preview-panel #query').fill('why is the sky blue');
    await page.waitForFunction(() => location.search.includes('q=why'), null, WAIT);
    const link = page.url();
    assert.match(link, /model=demo/);
    assert.match(link, /[?&]k=8(&|$)/);
    assert.match(link, /panel=preview/);
    await context.close();

    const restored = await openPage(browser, offsite);
    await restored.page.goto(link);
    await restored.page.locator('preview-panel #query').waitFor(WAIT);
    assert.equal(await restored.page.locator('preview-panel #query').inputValue(), 'why is the sky blue');
    assert.equal(await restored.page.locator('suggested-k #target').inputValue(), '2');
    assert.equal(await restored.page.locator('k-control #number').inputValue(), '8');
    assert.equal(await restored.page.locator('#tab-preview').getAttribute('aria-selected'), 'true');
    await restored.page.locator('#tab-norms').click();
    await waitForK(restored.page, 8);
    assert.equal(await restored.page.locator('head-norm-panel #log-norm').isChecked(), true);
    await restored.context.close();
  });

  it('preview: shows the top terms and the score of a query and a document, recomputed when k changes', async () => {
    const { context, page } = await openPage(browser, offsite);
    await page.goto(`${site}?model=demo&k=1&panel=preview`);
    const scoreAt = async (k: number) => {
      await page.locator('preview-panel .score', { hasText: `at k = ${k}:` }).waitFor(WAIT);
      return Number(await page.locator('preview-panel #score').textContent());
    };
    const score1 = await scoreAt(1);
    assert.ok(score1 > 0, `score at k = 1: ${score1}`);
    assert.ok((await page.locator('preview-panel sparse-terms li').count()) >= 2, 'terms are listed');
    const active = page.locator('preview-panel sparse-terms #active').first();
    assert.match((await active.textContent()) ?? '', /\d+ active dimensions/);
    await screenshot(page, '04-preview-k1');
    await page.locator('k-control button', { hasText: 'k = 16' }).click();
    const score16 = await scoreAt(16);
    assert.ok(score16 >= 0 && score16 < score1 / 4, `dividing the head by 16 shrinks the score: ${score1} -> ${score16}`);
    await screenshot(page, '04-preview-k16');
    await context.close();
  });

  it('loads a checkpoint through the Hub-id path from a local server in the Hub URL layout', async () => {
    const { context, page } = await openPage(browser, offsite);
    await page.goto(`${site}?model=${HUB_REPO}&k=2&hub=${encodeURIComponent(`${server.origin}/hub`)}`);
    await page.locator('notice-banner#hub-notice button[data-action="hub-accept"]').click();
    await page.locator('model-picker #memory').waitFor(WAIT);
    await waitForK(page, 2);
    const summary = (await page.locator('model-picker .status').textContent()) ?? '';
    assert.match(summary, /BertForMaskedLM/);
    assert.match(summary, /V = 300/);
    assert.doesNotMatch(summary, /synthetic demo/);
    const mean1 = await stat(page, 'mean', '1');
    assert.ok(Math.abs(mean1 - HUB_HEAD_NORM) < 0.01, `mean row norm ${mean1}, generated with ${HUB_HEAD_NORM}`);
    assert.ok(Math.abs((await stat(page, 'mean', 'after')) - mean1 / 2) <= 0.0011);
    assert.ok(server.requests.includes(`/hub/${HUB_REPO}/resolve/main/model.safetensors`));
    await screenshot(page, '05-hub-model');
    await context.close();
  });

  it("a link's hub= address is asked about before anything is fetched from it, named while in use, and never labelled with Table 1", async () => {
    const { context, page } = await openPage(browser, offsite);
    const hub = `${server.origin}/hub`;
    const before = server.requests.length;
    await page.goto(`${site}?model=${HUB_REPO}&hub=${encodeURIComponent(hub)}`);
    const ask = page.locator('notice-banner#hub-notice');
    await ask.locator('.box', { hasText: 'This link downloads models from another server' }).waitFor(WAIT);
    assert.match((await ask.locator('.box').textContent()) ?? '', new RegExp(new URL(hub).host.replace(/[.]/g, '[.]')));
    await page.waitForTimeout(500);
    assert.ok(!server.requests.slice(before).some((path) => path.startsWith('/hub/')), 'nothing was fetched from the link\'s server before the answer');
    await screenshot(page, '05-hub-consent');
    await ask.locator('button[data-action="hub-accept"]').click();
    await page.locator('model-picker #memory').waitFor(WAIT);
    assert.match((await page.locator('#hub-host').textContent()) ?? '', new RegExp(`Hub models come from ${new URL(hub).host}`));
    await page.goto(`${site}?model=roberta-base&hub=${encodeURIComponent(hub)}`);
    await page.locator('notice-banner#hub-notice button[data-action="hub-accept"]').click();
    await page.locator('notice-banner#notice').waitFor(WAIT); // the mirror has no roberta-base
    assert.equal(await page.locator('head-norm-panel').getAttribute('paper-row'), '', 'no Table 1 row for a model from another server');
    await page.goto(`${site}?model=demo&hub=${encodeURIComponent(hub)}`);
    await page.locator('notice-banner#hub-notice button[data-action="hub-default"]').click();
    await page.waitForFunction(() => !location.search.includes('hub='));
    assert.equal(await page.locator('#hub-host').count(), 0);
    await context.close();
  });

  it('a model too large for the device is refused from its config, before any weight is fetched', async () => {
    const { context, page } = await openPage(browser, offsite);
    await page.goto(`${site}?model=${HUGE_REPO}&hub=${encodeURIComponent(`${server.origin}/hub`)}`);
    await page.locator('notice-banner#hub-notice button[data-action="hub-accept"]').click();
    const notice = page.locator('notice-banner#notice .box');
    await notice.waitFor(WAIT);
    assert.match((await notice.textContent()) ?? '', /too large for this GPU[\s\S]*maxStorageBufferBindingSize/);
    assert.ok(!server.requests.some((path) => path.startsWith(`/hub/${HUGE_REPO}/`) && !path.endsWith('/config.json')), 'only config.json was read');
    await screenshot(page, '06-too-large');
    await context.close();
  });

  it('a missing Hub repo gives a plain-words error with a retry, not a blank page', async () => {
    const { context, page } = await openPage(browser, offsite);
    await page.goto(`${site}?model=e2e-org/does-not-exist&hub=${encodeURIComponent(`${server.origin}/hub`)}`);
    await page.locator('notice-banner#hub-notice button[data-action="hub-accept"]').click();
    const notice = page.locator('notice-banner#notice');
    await notice.waitFor(WAIT);
    assert.match((await notice.locator('.box').textContent()) ?? '', /Could not download e2e-org\/does-not-exist/);
    assert.equal(await page.locator('notice-banner button[data-action="retry"]').count(), 1);
    await screenshot(page, '06-hub-missing');
    await page.locator('notice-banner button[data-action="load-demo"]').click();
    await page.locator('model-picker #model-label').waitFor(WAIT);
    assert.match(page.url(), /model=demo/);
    await context.close();
  });

  it('cancelling a download half-way, by keyboard, says so in plain words, keeps the loaded demo and its settings, and the page stays usable', async () => {
    const { context, page } = await openPage(browser, offsite);
    await page.goto(`${site}?model=demo&k=4&hub=${encodeURIComponent(`${server.origin}/hub`)}`);
    await page.locator('notice-banner#hub-notice button[data-action="hub-accept"]').click();
    await page.locator('norm-histogram svg g[data-series="before"] rect').first().waitFor(WAIT);
    await waitForK(page, 4);
    const [mean1, mean4] = [await stat(page, 'mean', '1'), await stat(page, 'mean', 'after')];
    const weights = `/hub/${SLOW_REPO}/resolve/main/model.safetensors`;

    // Keyboard only: type the Hub id, Enter submits; Tab then reaches Cancel, Enter presses it.
    await page.locator('model-picker #hub-id').focus();
    await page.keyboard.type(SLOW_REPO);
    await page.keyboard.press('Enter');
    await page.locator('model-picker #progress-text', { hasText: /Downloading model\.safetensors: [1-9]/ }).waitFor(WAIT);
    await screenshot(page, '08-download-in-progress');
    for (let i = 0; i < 15 && (await focusedId(page)) !== 'cancel'; i++) await page.keyboard.press('Tab');
    assert.equal(await focusedId(page), 'cancel', 'Tab reaches the Cancel button');
    await page.keyboard.press('Enter');

    const notice = page.locator('notice-banner#notice .box');
    await notice.waitFor(WAIT);
    const said = (await notice.textContent()) ?? '';
    assert.match(said, new RegExp(`Loading ${SLOW_REPO} was cancelled`));
    assert.match(said, /The synthetic demo backbone is still loaded/);
    await until('the server to see the weights download dropped', () => server.aborted.includes(weights));
    // The previous state is all there: the demo, k = 4 and its statistics, in the page and in the link.
    assert.match((await page.locator('model-picker #model-label').textContent()) ?? '', /synthetic demo/);
    assert.match(page.url(), /model=demo(&|$)/);
    assert.match(page.url(), /[?&]k=4(&|$)/);
    assert.equal(await stat(page, 'mean', 'after'), mean4);
    assert.ok((await page.locator('norm-histogram g[data-series="after"] rect').count()) > 0, 'the histogram is still drawn');
    assert.equal(await page.locator('model-picker #cancel').count(), 0, 'no Cancel button is left behind');
    await screenshot(page, '09-download-cancelled');

    // Still usable: the GPU worker measures a new k (keyboard on the slider: four quarter octaves double k) ...
    await page.locator('k-control #slider').focus();
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
    await waitForK(page, 8);
    assert.ok(Math.abs((await stat(page, 'mean', 'after')) - mean1 / 8) <= 0.0011);
    // ... "Try again" downloads the cancelled model in full (nothing half-downloaded was cached) ...
    await page.locator('notice-banner button[data-action="retry"]').focus();
    await page.keyboard.press('Enter');
    await page.locator('model-picker #model-label', { hasText: SLOW_REPO }).waitFor(WAIT);
    await waitForK(page, 8);
    assert.ok(Math.abs((await stat(page, 'mean', '1')) - HUB_HEAD_NORM) < 0.01, 'the slow checkpoint is the one measured');
    assert.match(page.url(), /model=e2e-org%2Fslow-bert/);
    // ... and the demo loads again.
    await page.locator('model-picker #preset').selectOption('demo');
    await page.locator('model-picker #model-label', { hasText: 'synthetic demo' }).waitFor(WAIT);
    await waitForK(page, 8);
    assert.ok(Math.abs((await stat(page, 'mean', '1')) - mean1) <= 0.0011, 'the demo head is measured again');
    assert.match(page.url(), /model=demo(&|$)/);
    await context.close();
  });

  it('a lost GPU device: the page says so, "Reload the model" loads it on a fresh device, and the histogram comes back', async () => {
    const { context, page } = await openPage(browser, offsite);
    await page.goto(`${site}?model=demo&k=2`);
    await page.locator('norm-histogram svg g[data-series="before"] rect').first().waitFor(WAIT);
    await waitForK(page, 2);
    const mean2 = await stat(page, 'mean', 'after');

    await page.evaluate(() => (document.querySelector('splade-app') as unknown as { simulateDeviceLossForTesting(): Promise<void> }).simulateDeviceLossForTesting());
    const notice = page.locator('notice-banner#notice');
    await notice.locator('.box', { hasText: 'The GPU device was lost' }).waitFor(WAIT);
    const reload = notice.locator('button[data-action="reload-model"]');
    assert.equal((await reload.textContent())?.trim(), 'Reload the model');
    assert.equal(await page.locator('norm-histogram').count(), 0, 'figures of the lost device are not shown as current');
    assert.equal(await page.locator('model-picker #load-chosen').count(), 1, 'the picker offers the demo again too');
    assert.match(page.url(), /model=demo&k=2/);
    await screenshot(page, '10-device-lost');

    await reload.focus();
    await page.keyboard.press('Enter');
    // The lost device was destroyed: statistics can only come back from a freshly acquired one.
    await page.locator('norm-histogram svg g[data-series="before"] rect').first().waitFor(WAIT);
    await waitForK(page, 2);
    assert.equal(await stat(page, 'mean', 'after'), mean2);
    assert.match((await page.locator('model-picker #model-label').textContent()) ?? '', /synthetic demo/);
    assert.equal(await page.locator('notice-banner#notice').count(), 0, 'the notice is gone once the model is back');
    await screenshot(page, '11-device-reloaded');
    await context.close();
  });

  it('Training panel, teaching demo: one button trains k = 1 and k = 16 on synthetic data; k = 1 starts far higher', async () => {
    const { context, page } = await openPage(browser, offsite);
    await page.goto(`${site}?model=demo&k=1&panel=training&dsteps=4`);
    const panel = page.locator('k-demo-panel');
    await panel.locator('#synthetic', { hasText: 'Synthetic data' }).waitFor(WAIT);
    assert.equal(await panel.locator('#steps').inputValue(), '4', 'steps come from the URL');
    const run = panel.locator('#run-demo');
    assert.equal((await run.textContent())?.trim(), 'Train k = 1 and k = 16 side by side');
    await run.click();
    await panel.locator('#demo-status', { hasText: 'Done: 4 steps for each of k = 1 and k = 16' }).waitFor(WAIT);
    for (const chart of ['#rank-chart', '#flops-chart']) {
      assert.equal(await panel.locator(`${chart} g.series polyline`).count(), 2, `${chart}: one line per k`);
      assert.match((await panel.locator(`${chart} #y-label`).textContent()) ?? '', /log scale/);
    }
    const [rank1, rank16] = [await firstValue(page, '#rank-chart', 'k = 1'), await firstValue(page, '#rank-chart', 'k = 16')];
    const [flops1, flops16] = [await firstValue(page, '#flops-chart', 'k = 1'), await firstValue(page, '#flops-chart', 'k = 16')];
    assert.ok(rank1 > 10 * rank16, `first ranking loss: k = 1 ${rank1}, k = 16 ${rank16}`);
    assert.ok(flops1 > 10 * flops16, `first FLOPS(q): k = 1 ${flops1}, k = 16 ${flops16}`);
    assert.match((await panel.locator('#demo-provenance').textContent()) ?? '', /synthetic data: seeded random hidden states/);
    await screenshot(page, '12-training-demo');

    // The settings are part of the link.
    await panel.locator('#ks').fill('1, 4, 16');
    await panel.locator('#ks').press('Tab');
    await page.waitForFunction(() => location.search.includes('dks=1%2C4%2C16') && location.search.includes('panel=training'), null, WAIT);
    assert.equal((await run.textContent())?.trim(), 'Train k = 1, k = 4 and k = 16 side by side');
    await context.close();
  });

  it('Training panel, real training: a bad TSV is explained by line; the demo backbone trains 2 steps, shows losses and keeps a checkpoint over a reload', async () => {
    const { context, page } = await openPage(browser, offsite);
    await page.goto(`${site}?model=demo&k=4&panel=training`);
    await page.locator('model-picker #model-label').waitFor(WAIT);
    const panel = page.locator('train-panel');
    await panel.locator('#triplets').setInputFiles({ name: 'broken.tsv', mimeType: 'text/tab-separated-values', buffer: Buffer.from('q\tp\tn\nq only\tp\n') });
    await panel.locator('#data-error').waitFor(WAIT);
    assert.match((await panel.locator('#data-error').textContent()) ?? '', /broken\.tsv cannot be used for training\. broken\.tsv line 2: 2 tab-separated fields, expected 3/);
    await screenshot(page, '13a-training-bad-tsv');

    const pickTriplets = () => panel.locator('#triplets').setInputFiles({ name: 'tiny.tsv', mimeType: 'text/tab-separated-values', buffer: Buffer.from(TRIPLETS) });
    await pickTriplets();
    await panel.locator('#data', { hasText: 'tiny.tsv: 4 triplets' }).waitFor(WAIT);
    assert.equal(await panel.locator('#train-k').inputValue(), '4', "k defaults to the page's k");
    for (const [field, value] of [['#steps', '2'], ['#batchSize', '2'], ['#queryLength', '8'], ['#documentLength', '16']]) await panel.locator(field).fill(value);
    await panel.locator('#start').click();
    await panel.locator('#train-status', { hasText: 'Done: step 2 of 2' }).waitFor(WAIT);
    await screenshot(page, '13-training-real');
    assert.equal(await panel.locator('#train-loss g.series polyline').count(), 2, 'total and ranking loss lines');
    assert.equal(await panel.locator('#train-active g.series').count(), 2, 'query and document active-dimension lines');
    const loss = await firstValue(page, '#train-loss', 'total loss L');
    // A random-weight backbone's scores are huge: its first ranking loss can be exactly 0 (positives win by far).
    assert.ok(Number.isFinite(loss) && loss >= 0, `first total loss ${loss}`);
    const active = await firstValue(page, '#train-active', 'queries');
    assert.ok(active > 0 && active <= 30522, `active query dimensions ${active}`);
    assert.match((await panel.locator('#train-provenance').textContent()) ?? '', /synthetic demo backbone .* 4 triplets of tiny\.tsv, head divided by k = 4/);

    // A reload keeps the checkpoint (IndexedDB): picking the same data again finds the run at step 2.
    await page.reload();
    await page.locator('model-picker #model-label').waitFor(WAIT);
    await pickTriplets();
    await panel.locator('#checkpoint', { hasText: 'step 2 of 2' }).waitFor(WAIT);
    assert.match((await panel.locator('#start').textContent()) ?? '', /Start a new run/);
    await screenshot(page, '14-training-after-reload');
    await context.close();
  });

  it('Training panel, resume: a cancelled run resumes after a reload from its IndexedDB checkpoint and finishes', async () => {
    const { context, page } = await openPage(browser, offsite);
    await page.goto(`${site}?model=demo&k=2&panel=training`);
    await page.locator('model-picker #model-label').waitFor(WAIT);
    const panel = page.locator('train-panel');
    const pickTriplets = () => panel.locator('#triplets').setInputFiles({ name: 'tiny.tsv', mimeType: 'text/tab-separated-values', buffer: Buffer.from(TRIPLETS) });
    await pickTriplets();
    await panel.locator('#data', { hasText: 'tiny.tsv: 4 triplets' }).waitFor(WAIT);
    for (const [field, value] of [['#steps', '8'], ['#batchSize', '2'], ['#queryLength', '8'], ['#documentLength', '16'], ['#checkpointEvery', '2']]) await panel.locator(field).fill(value);
    await panel.locator('#start').click();
    await panel.locator('#saved', { hasText: 'step 2,' }).waitFor(WAIT);
    await panel.locator('#cancel-train').focus();
    await page.keyboard.press('Enter');
    await panel.locator('#train-status', { hasText: 'Cancelled' }).waitFor(WAIT);
    const saved = Number(/step (\d+)/.exec((await panel.locator('#saved').textContent()) ?? '')?.[1]);
    assert.ok(saved >= 2 && saved < 8, `cancelled with a checkpoint at step ${saved}`);
    await screenshot(page, '15-training-cancelled');

    await page.reload();
    await page.locator('model-picker #model-label').waitFor(WAIT);
    await pickTriplets();
    const resume = panel.locator('#resume');
    await resume.waitFor(WAIT);
    assert.equal((await resume.textContent())?.trim(), `Resume run from step ${saved}`);
    assert.equal(await panel.locator('#steps').inputValue(), '8', "the fields show the saved run's settings");
    await resume.click();
    await panel.locator('#train-status', { hasText: 'Done: step 8 of 8' }).waitFor(WAIT);
    const first = (await panel.locator('#train-loss #summary li').first().textContent()) ?? '';
    assert.match(first.replace(/\s+/g, ' '), new RegExp(`at step ${saved + 1}, \\S+ at step 8\\.`), 'the resumed run continues from the checkpoint');
    await screenshot(page, '16-training-resumed');
    await context.close();
  });

  it('without WebGPU: explains what to do and still shows the demo from precomputed figures', async () => {
    const plain = await launchChromium(false);
    try {
      const { page } = await openPage(plain, offsite);
      await page.goto(`${site}?model=demo&k=4`);
      const notice = page.locator('notice-banner#notice');
      await notice.waitFor(WAIT);
      assert.match((await notice.locator('.box').textContent()) ?? '', /WebGPU/);
      await waitForK(page, 4);
      assert.match((await page.locator('head-norm-panel #provenance').textContent()) ?? '', /Precomputed/);
      const [k1, k4] = [await stat(page, 'mean', '1'), await stat(page, 'mean', 'after')];
      assert.ok(Math.abs(k4 - k1 / 4) <= 0.0011);
      await screenshot(page, '07-no-webgpu');
    } finally {
      await plain.close();
    }
  });
});

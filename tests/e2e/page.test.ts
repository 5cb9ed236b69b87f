// End-to-end tests of the BUILT page (dist/) in headless Chromium, served under a sub-path from 127.0.0.1 only:
// the demo's histogram, k dividing the statistics, the URL state, the preview, the Hub-id path, failures.
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
/** A config whose vocabulary matrix (4M x 1024 fp32 = 16 GiB) no device binding allows; it has no weights at all. */
const HUGE_REPO = 'e2e-org/huge-vocab';
const HUGE_CONFIG = { architectures: ['BertForMaskedLM'], model_type: 'bert', vocab_size: 4_000_000, hidden_size: 1024, num_hidden_layers: 1, num_attention_heads: 16, intermediate_size: 4096 };
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
    server = await startTestServer({ siteDir: dist, sitePath: SITE_PATH, hubRepos: new Map([
        [HUB_REPO, tinyHubRepo()],
        [HUGE_REPO, new Map([['config.json', new TextEncoder().encode(JSON.stringify(HUGE_CONFIG))]])],
      ]) });
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

  it('a model too large for the device is refused from its config, before any weight is fetched', async () => {
    const { context, page } = await openPage(browser, offsite);
    await page.goto(`${site}?model=${HUGE_REPO}&hub=${encodeURIComponent(`${server.origin}/hub`)}`);
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

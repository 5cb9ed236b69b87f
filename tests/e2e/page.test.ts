// End-to-end tests of the BUILT page in headless Chromium, served under a sub-path from 127.0.0.1 only: the demo's
// histogram, k dividing the statistics, the URL state, the preview, the Hub-id path and a link's hub= address,
// failures, a download cancelled half-way, a lost GPU device, and the page without WebGPU.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeSafetensors } from '../../src/io/formats/safetensors.ts';
import { makeTinyCheckpoint } from '../../src/model/tiny-model.ts';
import { launchChromium, openPage, screenshot } from './browser.ts';
import { focusedId, stat, until, useBuiltSite, WAIT, waitForK } from './site.ts';

const HUB_REPO = 'e2e-org/tiny-bert';
const HUB_HEAD_NORM = 3;
/**
 * The same tiny checkpoint, served in 24 chunks 100 ms apart and held after the third until the test releases it: a
 * cancel always lands half-way, however slow the machine, and the retry after the release takes about 2 s.
 */
const SLOW_REPO = 'e2e-org/slow-bert';
const SLOW_DOWNLOAD_CHUNKS = 24;
const SLOW_CHUNK_DELAY_MS = 100;
const SLOW_HOLD_AFTER_CHUNKS = 3;
/** A config whose vocabulary matrix (1M x 1024 fp32 = 3.8 GiB) no device binding allows; it has no weights at all. */
const HUGE_REPO = 'e2e-org/huge-layer';
// A vocabulary matrix past one binding is held in row parts; a layer matrix is not: this MLP input weight (131072 x
// 4096 floats, 2 GiB) exceeds any binding SwiftShader or a laptop GPU grants.
const HUGE_CONFIG = {
  architectures: ['BertForMaskedLM'],
  model_type: 'bert',
  vocab_size: 30522,
  hidden_size: 4096,
  num_hidden_layers: 1,
  num_attention_heads: 16,
  intermediate_size: 131072,
};
const STATS = ['mean', 'max', 'p50', 'p99', 'std'] as const;

function tinyHubRepo(): Map<string, Uint8Array> {
  const { config, tensors } = makeTinyCheckpoint('bert', {
    seed: 7,
    vocabSize: 300,
    hidden: 16,
    layers: 1,
    heads: 2,
    intermediate: 32,
    headNormScale: HUB_HEAD_NORM,
  });
  const text = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...Array.from({ length: 295 }, (_, i) => `w${i}`)].join('\n');
  return new Map([
    ['config.json', text(config)],
    ['model.safetensors', writeSafetensors(tensors)],
    ['vocab.txt', text(vocab)],
  ]);
}

describe('the built page', { timeout: 600_000 }, () => {
  const built = useBuiltSite(() => {
    const slow = tinyHubRepo();
    const chunkBytes = Math.ceil(slow.get('model.safetensors')!.length / SLOW_DOWNLOAD_CHUNKS);
    return {
      hubRepos: new Map([
        [HUB_REPO, tinyHubRepo()],
        [SLOW_REPO, slow],
        [HUGE_REPO, new Map([['config.json', new TextEncoder().encode(JSON.stringify(HUGE_CONFIG))]])],
      ]),
      slowRepos: new Map([
        [SLOW_REPO, { chunkBytes, chunkDelayMs: SLOW_CHUNK_DELAY_MS, holdAfterChunks: SLOW_HOLD_AFTER_CHUNKS }],
      ]),
    };
  });

  it('shows the demo head histogram, divides the statistics by k, and keeps the state in the URL', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(built.site);
    await page.locator('norm-histogram svg g[data-series="before"] rect').first().waitFor(WAIT);
    await waitForK(page, 1);
    assert.match((await page.locator('model-picker #model-label').textContent()) ?? '', /demo backbone/);
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

    const restored = await openPage(built.browser, built.offsite);
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
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=demo&k=1&panel=preview`);
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
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=${HUB_REPO}&k=2&hub=${encodeURIComponent(`${built.server.origin}/hub`)}`);
    await page.locator('notice-banner#hub-notice button[data-action="hub-accept"]').click();
    await page.locator('model-picker #memory').waitFor(WAIT);
    await waitForK(page, 2);
    const summary = (await page.locator('model-picker .status').textContent()) ?? '';
    assert.match(summary, /BertForMaskedLM/);
    assert.match(summary, /V = 300/);
    assert.doesNotMatch(summary, /demo backbone/);
    const mean1 = await stat(page, 'mean', '1');
    assert.ok(Math.abs(mean1 - HUB_HEAD_NORM) < 0.01, `mean row norm ${mean1}, generated with ${HUB_HEAD_NORM}`);
    assert.ok(Math.abs((await stat(page, 'mean', 'after')) - mean1 / 2) <= 0.0011);
    assert.ok(built.server.requests.includes(`/hub/${HUB_REPO}/resolve/main/model.safetensors`));
    await screenshot(page, '05-hub-model');
    await context.close();
  });

  it("a link's hub= address is asked about before anything is fetched from it, named while in use, and never labelled with Table 1", async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    const hub = `${built.server.origin}/hub`;
    const before = built.server.requests.length;
    await page.goto(`${built.site}?model=${HUB_REPO}&hub=${encodeURIComponent(hub)}`);
    const ask = page.locator('notice-banner#hub-notice');
    await ask.locator('.box', { hasText: 'This link downloads models from another server' }).waitFor(WAIT);
    assert.match((await ask.locator('.box').textContent()) ?? '', new RegExp(new URL(hub).host.replace(/[.]/g, '[.]')));
    await page.waitForTimeout(500);
    assert.ok(
      !built.server.requests.slice(before).some((path) => path.startsWith('/hub/')),
      "nothing was fetched from the link's server before the answer",
    );
    await screenshot(page, '05-hub-consent');
    await ask.locator('button[data-action="hub-accept"]').click();
    await page.locator('model-picker #memory').waitFor(WAIT);
    assert.match((await page.locator('#hub-host').textContent()) ?? '', new RegExp(`Hub models come from ${new URL(hub).host}`));
    await page.goto(`${built.site}?model=roberta-base&hub=${encodeURIComponent(hub)}`);
    await page.locator('notice-banner#hub-notice button[data-action="hub-accept"]').click();
    await page.locator('notice-banner#notice').waitFor(WAIT); // the mirror has no roberta-base
    assert.equal(
      await page.locator('head-norm-panel').getAttribute('paper-row'),
      '',
      'no Table 1 row for a model from another server',
    );
    await page.goto(`${built.site}?model=demo&hub=${encodeURIComponent(hub)}`);
    await page.locator('notice-banner#hub-notice button[data-action="hub-default"]').click();
    await page.waitForFunction(() => !location.search.includes('hub='));
    assert.equal(await page.locator('#hub-host').count(), 0);
    await context.close();
  });

  it('a model too large for the device is refused from its config, before any weight is fetched', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=${HUGE_REPO}&hub=${encodeURIComponent(`${built.server.origin}/hub`)}`);
    await page.locator('notice-banner#hub-notice button[data-action="hub-accept"]').click();
    const notice = page.locator('notice-banner#notice .box');
    await notice.waitFor(WAIT);
    assert.match((await notice.textContent()) ?? '', /too large for this GPU[\s\S]*maxStorageBufferBindingSize/);
    assert.ok(
      !built.server.requests.some(
        (path) => path.startsWith(`/hub/${HUGE_REPO}/`) && !/\/(config|modules|router_config)\.json$/.test(path),
      ),
      "only config.json was read (and the sentence-transformers layout's modules.json, router_config.json)",
    );
    await screenshot(page, '06-too-large');
    await context.close();
  });

  it('a missing Hub repo gives a plain-words error with a retry, not a blank page', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=e2e-org/does-not-exist&hub=${encodeURIComponent(`${built.server.origin}/hub`)}`);
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
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=demo&k=4&hub=${encodeURIComponent(`${built.server.origin}/hub`)}`);
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
    // the weights' body is in flight, held half-way by the server (the progress above may be the header's read alone)
    await until('the weights download to be held half-way', () => built.server.held.includes(weights));
    await screenshot(page, '08-download-in-progress');
    for (let i = 0; i < 15 && (await focusedId(page)) !== 'cancel'; i++) await page.keyboard.press('Tab');
    assert.equal(await focusedId(page), 'cancel', 'Tab reaches the Cancel button');
    await page.keyboard.press('Enter');

    const notice = page.locator('notice-banner#notice .box');
    await notice.waitFor(WAIT);
    const said = (await notice.textContent()) ?? '';
    assert.match(said, new RegExp(`Loading ${SLOW_REPO} was cancelled`));
    assert.match(said, /The demo backbone is still loaded/);
    await until('the server to see the weights download dropped', () => built.server.aborted.includes(weights));
    // The previous state is all there: the demo, k = 4 and its statistics, in the page and in the link.
    assert.match((await page.locator('model-picker #model-label').textContent()) ?? '', /demo backbone/);
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
    built.server.releaseHeldDownloads();
    await page.locator('notice-banner button[data-action="retry"]').focus();
    await page.keyboard.press('Enter');
    await page.locator('model-picker #model-label', { hasText: SLOW_REPO }).waitFor(WAIT);
    await waitForK(page, 8);
    assert.ok(Math.abs((await stat(page, 'mean', '1')) - HUB_HEAD_NORM) < 0.01, 'the slow checkpoint is the one measured');
    assert.match(page.url(), /model=e2e-org%2Fslow-bert/);
    // ... and the demo loads again.
    await page.locator('model-picker #preset').selectOption('demo');
    await page.locator('model-picker #model-label', { hasText: 'demo backbone' }).waitFor(WAIT);
    await waitForK(page, 8);
    assert.ok(Math.abs((await stat(page, 'mean', '1')) - mean1) <= 0.0011, 'the demo head is measured again');
    assert.match(page.url(), /model=demo(&|$)/);
    await context.close();
  });

  it('a lost GPU device: the page says so, "Reload the model" loads it on a fresh device, and the histogram comes back', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=demo&k=2`);
    await page.locator('norm-histogram svg g[data-series="before"] rect').first().waitFor(WAIT);
    await waitForK(page, 2);
    const mean2 = await stat(page, 'mean', 'after');

    await page.evaluate(() =>
      (
        document.querySelector('splade-app') as unknown as { simulateDeviceLossForTesting(): Promise<void> }
      ).simulateDeviceLossForTesting(),
    );
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
    assert.match((await page.locator('model-picker #model-label').textContent()) ?? '', /demo backbone/);
    assert.equal(await page.locator('notice-banner#notice').count(), 0, 'the notice is gone once the model is back');
    await screenshot(page, '11-device-reloaded');
    await context.close();
  });

  it('without WebGPU: explains what to do and still shows the demo from precomputed figures', async () => {
    const plain = await launchChromium(false);
    try {
      const { page } = await openPage(plain, built.offsite);
      await page.goto(`${built.site}?model=demo&k=4`);
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

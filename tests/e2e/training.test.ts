// End-to-end tests of the BUILT page's Training panel in headless Chromium: the teaching demo (k = 1 against a
// divided head), real training of the demo backbone on a typed-in TSV with a checkpoint kept over a reload, a
// cancelled run resumed after a reload, and masked-LM training of the demo backbone whose model the Model tab then shows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openPage, screenshot } from './browser.ts';
import { firstValue, stat, useBuiltSite, WAIT } from './site.ts';

/** Tiny training triplets for the demo backbone (its vocabulary is bert-base-uncased's). */
const TRIPLETS = [
  'what causes tides\tthe moon pulls the sea\tcats sleep a lot',
  'why is the sky blue\tair scatters blue light\tbread needs yeast',
  'how do bees make honey\tbees turn nectar into honey\ttrains run on rails',
  'who wrote hamlet\tshakespeare wrote hamlet\tthe river is wide',
].join('\n');

/** Steps of the resumed run: cancelled after its step-2 checkpoint, resumed from it after a reload. */
const RESUME_STEPS = 6;

describe('the built page: training', { timeout: 600_000 }, () => {
  const built = useBuiltSite();

  it('Training panel, teaching demo: one button trains k = 1 and k = 16 on synthetic data; k = 1 starts far higher', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=demo&k=1&panel=training&dsteps=4`);
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
    await page.waitForFunction(
      () => location.search.includes('dks=1%2C4%2C16') && location.search.includes('panel=training'),
      null,
      WAIT,
    );
    assert.equal((await run.textContent())?.trim(), 'Train k = 1, k = 4 and k = 16 side by side');
    await context.close();
  });

  it('Training panel, real training: a bad TSV is explained by line; the demo backbone trains 2 steps, shows losses and keeps a checkpoint over a reload', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=demo&k=4&panel=training`);
    await page.locator('model-picker #model-label').waitFor(WAIT);
    const panel = page.locator('train-panel');
    await panel
      .locator('#triplets')
      .setInputFiles({ name: 'broken.tsv', mimeType: 'text/tab-separated-values', buffer: Buffer.from('q\tp\tn\nq only\tp\n') });
    await panel.locator('#data-error').waitFor(WAIT);
    assert.match(
      (await panel.locator('#data-error').textContent()) ?? '',
      /broken\.tsv cannot be used for training\. broken\.tsv line 2: 2 tab-separated fields, expected 3/,
    );
    await screenshot(page, '13a-training-bad-tsv');

    const pickTriplets = () =>
      panel
        .locator('#triplets')
        .setInputFiles({ name: 'tiny.tsv', mimeType: 'text/tab-separated-values', buffer: Buffer.from(TRIPLETS) });
    await pickTriplets();
    await panel.locator('#data', { hasText: 'tiny.tsv: 4 triplets' }).waitFor(WAIT);
    assert.equal(await panel.locator('#train-k').inputValue(), '4', "k defaults to the page's k");
    for (const [field, value] of [
      ['#steps', '2'],
      ['#batchSize', '2'],
      ['#queryLength', '8'],
      ['#documentLength', '16'],
    ])
      await panel.locator(field).fill(value);
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
    assert.match(
      (await panel.locator('#train-provenance').textContent()) ?? '',
      /demo backbone .* 4 triplets of tiny\.tsv, head divided by k = 4/,
    );

    // A reload keeps the checkpoint (IndexedDB): picking the same data again finds the run at step 2.
    await page.reload();
    await page.locator('model-picker #model-label').waitFor(WAIT);
    await pickTriplets();
    await panel.locator('#checkpoint', { hasText: 'step 2 of 2' }).waitFor(WAIT);
    assert.match((await panel.locator('#start').textContent()) ?? '', /Start a new run/);
    await screenshot(page, '14-training-after-reload');
    await context.close();
  });

  it('Training panel, health: probes update live, and a run of the demo backbone with lambdas far too large pauses on the collapse alarm, then resumes past it', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=demo&k=1&panel=training`);
    await page.locator('model-picker #model-label').waitFor(WAIT);
    const panel = page.locator('train-panel');
    await panel
      .locator('#triplets')
      .setInputFiles({ name: 'tiny.tsv', mimeType: 'text/tab-separated-values', buffer: Buffer.from(TRIPLETS) });
    await panel.locator('#data', { hasText: 'tiny.tsv: 4 triplets' }).waitFor(WAIT);
    for (const [field, value] of [
      ['#steps', '6'],
      ['#batchSize', '2'],
      ['#queryLength', '8'],
      ['#documentLength', '16'],
      ['#peakLr', '1e-2'],
      ['#lambdaQueries', '5'],
      ['#lambdaDocuments', '5'],
    ])
      await panel.locator(field).fill(value);
    await panel.locator('#health-settings summary').click();
    assert.match(await panel.locator('#probe-queries').inputValue(), /what causes the seasons on earth/);
    await panel.locator('#pause-on-alarm').check();
    await panel.locator('#start').click();
    // lambdas 100 times the paper's push every weight to zero: the FLOPS term empties the vectors by step 4 of 6
    // (the CLI, same settings: 1584 -> 101 -> 18.5 active query dimensions at steps 1, 3, 4), and the run pauses
    await panel.locator('#train-status', { hasText: 'Paused at step' }).waitFor(WAIT);
    const status = (await panel.locator('#train-status').textContent()) ?? '';
    assert.match(status, /Paused at step (\d) on alarm "Vectors are emptying \(collapse\)" \(collapse\)/);
    const pausedAt = Number(/Paused at step (\d)/.exec(status)![1]);
    const collapse = panel.locator('#alarms li[data-rule="collapse"]');
    assert.match((await collapse.textContent()) ?? '', new RegExp(`Alarm at step ${pausedAt}: `));
    const probes = panel.locator('#probes');
    assert.match(
      (await probes.locator('#probe-step').textContent()) ?? '',
      new RegExp(`Probes at step ${pausedAt}, compared with step 0`),
    );
    assert.equal(await probes.locator('.card').count(), 4, 'one card per default probe');
    assert.equal(await probes.locator('#probe-scores tbody tr').count(), 2, 'two query probes against two document probes');
    assert.match((await probes.locator('.card').first().textContent()) ?? '', /Active \d+ → \d+/);
    await screenshot(page, '15-training-alarm-paused');
    await panel.locator('#resume', { hasText: `Resume run from step ${pausedAt}` }).click();
    // emptied vectors score every candidate alike: the ranking loss then sits at chance, a second alarm, raised at the
    // run's last step (the CLI with the same settings raises it there too); either way the run went past the first
    const done = panel.locator('#train-status', { hasText: 'Done: step 6 of 6' });
    const stoppedAtEnd = panel.locator('#train-status', { hasText: /Paused at step 6 on alarm .*\(chance-loss\)/ });
    await done.or(stoppedAtEnd).waitFor(WAIT);
    assert.equal(await panel.locator('#alarms li[data-rule="collapse"]').count(), 1, 'the alarm is listed once');
    assert.match((await probes.locator('#probe-step').textContent()) ?? '', /Probes at step 6/);
    await screenshot(page, '16-training-alarm-resumed');
    await context.close();
  });

  it('Training panel, resume: a cancelled run resumes after a reload from its IndexedDB checkpoint and cached batches, without the file, and finishes', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=demo&k=2&panel=training`);
    await page.locator('model-picker #model-label').waitFor(WAIT);
    const panel = page.locator('train-panel');
    const pickTriplets = () =>
      panel
        .locator('#triplets')
        .setInputFiles({ name: 'tiny.tsv', mimeType: 'text/tab-separated-values', buffer: Buffer.from(TRIPLETS) });
    await pickTriplets();
    await panel.locator('#data', { hasText: 'tiny.tsv: 4 triplets' }).waitFor(WAIT);
    for (const [field, value] of [
      ['#steps', String(RESUME_STEPS)],
      ['#batchSize', '2'],
      ['#queryLength', '8'],
      ['#documentLength', '16'],
      ['#checkpointEvery', '2'],
    ])
      await panel.locator(field).fill(value);
    await panel.locator('#start').click();
    await panel.locator('#saved', { hasText: 'step 2,' }).waitFor(WAIT);
    await panel.locator('#cancel-train').focus();
    await page.keyboard.press('Enter');
    await panel.locator('#train-status', { hasText: 'Cancelled' }).waitFor(WAIT);
    const saved = Number(/step (\d+)/.exec((await panel.locator('#saved').textContent()) ?? '')?.[1]);
    assert.ok(saved >= 2 && saved < RESUME_STEPS, `cancelled with a checkpoint at step ${saved}`);
    await screenshot(page, '15-training-cancelled');

    await page.reload();
    await page.locator('model-picker #model-label').waitFor(WAIT);
    // no file picked again: the run's batches were cached in IndexedDB before its first step
    const cached = panel.locator('batch-cache-list tr', { hasText: 'tiny.tsv (4 triplets)' }).filter({ hasText: 'lengths 8/16' });
    await cached.waitFor(WAIT);
    assert.match(
      (await cached.textContent()) ?? '',
      new RegExp(`\\b${RESUME_STEPS}\\b[\\s\\S]*batch 2, lengths 8/16`),
      `the ${RESUME_STEPS} batches of the run are cached`,
    );
    await cached.locator('.use-cache').click();
    await panel.locator('#data', { hasText: 'tiny.tsv: 4 triplets, from the batches cached in this browser' }).waitFor(WAIT);
    const resume = panel.locator('#resume');
    await resume.waitFor(WAIT);
    assert.equal((await resume.textContent())?.trim(), `Resume run from step ${saved}`);
    assert.equal(await panel.locator('#steps').inputValue(), String(RESUME_STEPS), "the fields show the saved run's settings");
    await resume.click();
    await panel.locator('#train-status', { hasText: `Done: step ${RESUME_STEPS} of ${RESUME_STEPS}` }).waitFor(WAIT);
    const first = (await panel.locator('#train-loss #summary li').first().textContent()) ?? '';
    assert.match(
      first.replace(/\s+/g, ' '),
      new RegExp(`at step ${saved + 1}, \\S+ at step ${RESUME_STEPS}\\.`),
      'the resumed run continues from the checkpoint',
    );
    await screenshot(page, '16-training-resumed');
    // and the cache can be cleared from the page (its list folds away once data is chosen)
    if (!(await panel.locator('#batch-caches').evaluate((d) => (d as HTMLDetailsElement).open)))
      await panel.locator('#batch-caches summary').click();
    await panel.locator('batch-cache-list tr', { hasText: 'tiny.tsv (4 triplets)' }).locator('.clear-cache').click();
    await panel.locator('batch-cache-list tr', { hasText: 'tiny.tsv (4 triplets)' }).waitFor({ ...WAIT, state: 'detached' });
    await panel.locator('#data', { hasText: 'No triplets yet.' }).waitFor(WAIT);
    await context.close();
  });
  it('Training panel, masked-LM training: the demo backbone trains 3 steps on the lesson text, loss and row norms drawn; its model then becomes the page model, also after a reload', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=demo&panel=training`);
    await page.locator('model-picker #model-label').waitFor(WAIT);
    const panel = page.locator('mlm-panel');
    for (const [field, value] of [
      ['#mlm-steps', '3'],
      ['#mlm-batchSize', '2'],
      ['#mlm-maxLength', '32'],
    ])
      await panel.locator(field).fill(value);
    await panel.locator('#mlm-start').click();
    await panel.locator('#mlm-status', { hasText: 'Done: 3 steps' }).waitFor(WAIT);
    const status = (await panel.locator('#mlm-status').textContent()) ?? '';
    const [before, after] = /mean row norm went from (\d+\.\d+) to (\d+\.\d+)/.exec(status)!.slice(1).map(Number);
    // the demo's already-long head starts divided by 5 (the field's default for it), so that its rows can grow
    assert.equal(await panel.locator('#mlm-k').inputValue(), '5');
    assert.ok(Math.abs(before - 2.51 / 5) < 0.01, `the demo head's mean row norm before, divided by 5: ${status}`);
    assert.ok(after > 0, `the head after: ${status}`);
    assert.equal(await panel.locator('#mlm-loss-chart g.series polyline').count(), 1, 'the loss line');
    assert.equal(await panel.locator('#mlm-norm-chart g.series polyline').count(), 2, 'the mean and 99th percentile lines');
    const loss = await firstValue(page, '#mlm-loss-chart', 'masked-LM loss');
    assert.ok(loss > 0 && loss < 20, `first masked-LM loss ${loss}`);
    await screenshot(page, '17-training-mlm');

    await panel.locator('#mlm-use').click();
    await page.locator('model-picker #model-label', { hasText: 'masked-LM trained' }).waitFor(WAIT);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('model')?.startsWith('mlm:'), null, WAIT);
    // the table shows the demo's head until the trained one is measured (their means differ: it started divided by 5)
    const measuresTrained = async () => {
      for (const deadline = Date.now() + WAIT.timeout; Date.now() < deadline; await page.waitForTimeout(200))
        if (Math.abs((await stat(page, 'mean', '1')) - after) <= 0.0011) return true;
      return false;
    };
    await page.locator('head-stats-table tr[data-stat="mean"]').waitFor(WAIT);
    assert.ok(await measuresTrained(), `the Model tab measures the trained head (${after}): ${await stat(page, 'mean', '1')}`);
    await page.reload();
    await page.locator('model-picker #model-label', { hasText: 'masked-LM trained' }).waitFor(WAIT);
    await page.locator('head-stats-table tr[data-stat="mean"]').waitFor(WAIT);
    assert.ok(await measuresTrained(), `the same head after a reload (${after}): ${await stat(page, 'mean', '1')}`);
    await context.close();
  });
});

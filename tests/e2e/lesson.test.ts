// End-to-end tests of the BUILT page's lesson in headless Chromium: live on SwiftShader with the bundled demo (a typed
// sentence's vector, k = 1 against k = 8, the whole training played (the divided head ending better on the held-out
// queries in the long tier), the same first frame as the bundled recording), a lesson step's URL round trip and its keyboard, and the
// recording played without WebGPU with its presenter view and printed summary; the no-WebGPU banner's one click to the
// recording; the presenter view at 1024x768 driven by PageDown alone through every step (axe on each, screenshots);
// links with values the page cannot use. The live lesson plays 2 steps (a link's lsteps) in the suite;
// `npm run test:e2e:lesson` plays 10, 20 and 40 (SPLADE_LAB_E2E_LESSON_STEPS, comma-separated) and checks the divided
// head ends ahead on nDCG@10 and on retrieval FLOPS. Every length checks each comparing sentence against the numbers
// the page shows beside it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolations, describeViolations } from './accessibility.ts';
import { ARTIFACTS, launchChromium, openPage, screenshot } from './browser.ts';
import { checkDivisionClaims, checkSparsityClaim, checkTakeaway, checkTrainingClaim } from './lesson-claims-check.ts';
import { useBuiltSite, WAIT } from './site.ts';

interface TraceHeldOut {
  ndcg10: number;
}
const trace = JSON.parse(readFileSync(join(process.cwd(), 'public', 'lesson', 'trace.json'), 'utf8')) as {
  facts: { settings: { steps: number; ks: number[] } };
  frames: { runs: { k: number; heldOut: TraceHeldOut | null }[] }[];
};

/** The summary's nDCG@10 of a k at the last measured step, as the page shows it. */
async function finalNdcg(page: Page, k: number): Promise<number> {
  return Number(await page.locator(`lesson-panel #summary-screen tr[data-k="${k}"] td[data-measure="ndcg-after"]`).textContent());
}

/** The summary's retrieval FLOPS of a k at the last measured step, as the page shows it (digits only). */
async function finalFlops(page: Page, k: number): Promise<number> {
  const cell = await page.locator(`lesson-panel #summary-screen tr[data-k="${k}"] td[data-measure="flops"]`).textContent();
  return Number((cell ?? '').replaceAll(',', '').trim());
}

/**
 * Lengths of the live lesson: 2 steps in the suite (the page plays live training and shows its frames; the trainer's
 * numbers are the Node lesson tests'), 10, 20 and 40 (the page's lsteps shortcuts) in `npm run test:e2e:lesson`, which
 * also checks the divided head ends ahead on the page.
 */
const LIVE_LENGTHS = (process.env.SPLADE_LAB_E2E_LESSON_STEPS ?? '2').split(',').map(Number);
/** From this many steps the divided head is ahead on nDCG@10 and on retrieval FLOPS when the lesson ends. */
const STEPS_FOR_THE_DIVIDED_HEAD_AHEAD = 10;

describe('the built page: lesson', { timeout: 900_000 }, () => {
  const built = useBuiltSite();

  for (const LIVE_STEPS of LIVE_LENGTHS)
    it(`live on SwiftShader, ${LIVE_STEPS} steps: a typed sentence, k = 1 against k = 8, the whole training played, every comparing sentence checked against its numbers${LIVE_STEPS >= STEPS_FOR_THE_DIVIDED_HEAD_AHEAD ? '; the divided head ends ahead' : ''}`, async () => {
      const { context, page } = await openPage(built.browser, built.offsite);
      const start = Date.now();
      await page.goto(`${built.site}?model=demo&panel=lesson&lspeed=fast&lsteps=${LIVE_STEPS}`);
      const lesson = page.locator('lesson-panel');
      await lesson.locator('#lesson-mode[data-mode="live"]').waitFor(WAIT);
      await lesson.locator('lesson-vectors #vector').waitFor(WAIT);
      // a medical sentence: the demo backbone expands it to medical words (one of these among its top terms, not a word of
      // the sentence: hepatitis and infected for the demo of cac224c, influenza for the one before)
      await lesson.locator('#sentence').fill('a vaccine protects against the virus');
      await lesson.locator('#show-vector').click();
      // the vector is the typed sentence's (its 6 tokens)
      await lesson.locator('lesson-vectors #vector #active', { hasText: '· 6 tokens' }).waitFor(WAIT);
      const medical = ['influenza', 'hepatitis', 'infected', 'infection', 'disease', 'vaccines'];
      await lesson
        .locator(medical.map((term) => `lesson-vectors #vector li[data-term="${term}"]`).join(', '))
        .first()
        .waitFor({ timeout: 10_000 });
      await checkSparsityClaim(page);
      await screenshot(page, '40-lesson-1-vector');

      await page.keyboard.press('n');
      await page.waitForURL(/lstep=2/);
      const figure = (name: string, k: number) =>
        lesson.locator(`lesson-vectors tr[data-figure="${name}"] td[data-k="${k}"]`).textContent();
      await lesson.locator('lesson-vectors #figures').waitFor(WAIT);
      assert.ok(
        Number(await figure('maxLogit', 1)) > 4 * Number(await figure('maxLogit', 8)),
        'k = 1 saturates: its largest logit is far larger',
      );
      assert.ok(Number(await figure('flops', 1)) > Number(await figure('flops', 8)), 'k = 1 costs more FLOPS');
      await checkDivisionClaims(page);
      await screenshot(page, '41-lesson-2-long-rows');

      await lesson.locator('#lesson-step-3').click();
      await lesson.locator('#lesson-status', { hasText: `Step 0 of ${LIVE_STEPS}` }).waitFor(WAIT);
      // the live frame 0 is the recording's: the same code and backbone (ties in float32 sums may move the 4th digit)
      for (const k of trace.facts.settings.ks) {
        const recorded = trace.frames[0].runs.find((r) => r.k === k)!.heldOut!.ndcg10;
        const shown = await page.evaluate((k) => {
          const panel = document.querySelector('splade-app')!.shadowRoot!.querySelector('lesson-panel') as unknown as {
            playback: { frames: { runs: { k: number; heldOut: { ndcg10: number } }[] }[] };
          };
          return panel.playback.frames[0].runs.find((r) => r.k === k)!.heldOut.ndcg10;
        }, k);
        assert.ok(Math.abs(shown - recorded) < 2e-3, `k = ${k}: live nDCG@10 ${shown} before training, recorded ${recorded}`);
      }
      const trainingStart = Date.now();
      await page.keyboard.press(' ');
      await lesson.locator('#lesson-status', { hasText: 'playing' }).waitFor(WAIT);
      await lesson.locator('#lesson-status', { hasText: `Done: ${LIVE_STEPS} steps` }).waitFor({ timeout: 600_000 });
      const trainingSeconds = (Date.now() - trainingStart) / 1000;
      await checkTrainingClaim(page);
      await screenshot(page, '42-lesson-3-training');

      await page.keyboard.press('n');
      await lesson.locator('#summary-screen #takeaway').waitFor(WAIT);
      const [plain, divided] = [await finalNdcg(page, 1), await finalNdcg(page, 8)];
      // the summary shows the held-out measures of the last live frame that measured them, after training
      const played = await page.evaluate(() => {
        const panel = document.querySelector('splade-app')!.shadowRoot!.querySelector('lesson-panel') as unknown as {
          playback: { frames: { step: number; runs: { k: number; heldOut: { ndcg10: number } | null }[] }[] };
        };
        const frames = panel.playback.frames;
        const measured = [...frames].reverse().find((f) => f.runs.every((r) => r.heldOut))!;
        return {
          last: frames.at(-1)!.step,
          measured: measured.step,
          runs: measured.runs.map((r) => ({ k: r.k, ndcg10: r.heldOut!.ndcg10 })),
        };
      });
      assert.equal(played.last, LIVE_STEPS, 'the last frame is of the last step');
      assert.ok(played.measured > 0, `held-out queries measured after training (at step ${played.measured})`);
      for (const run of played.runs)
        assert.equal(
          await finalNdcg(page, run.k),
          Number(run.ndcg10.toFixed(3)),
          `k = ${run.k}: the summary is the live frames'`,
        );
      const leaders = await checkTakeaway(page);
      if (LIVE_STEPS >= STEPS_FOR_THE_DIVIDED_HEAD_AHEAD) {
        assert.ok(divided > plain, `after training, k = 8 (nDCG@10 ${divided}) beats k = 1 (${plain})`);
        assert.deepEqual(leaders, { ndcg: '8', cheapest: '8' }, 'k = 8 is ahead on nDCG@10 and on retrieval FLOPS');
      }
      await screenshot(page, `43-lesson-4-trade-${LIVE_STEPS}-steps`);
      console.log(
        `[lesson timing] whole live lesson of ${LIVE_STEPS} steps ${((Date.now() - start) / 1000).toFixed(0)} s, of which training ${trainingSeconds.toFixed(0)} s; nDCG@10 k=1 ${plain}, k=8 ${divided}; retrieval FLOPS k=1 ${await finalFlops(page, 1)}, k=8 ${await finalFlops(page, 8)}`,
      );

      // the link of a step opens at that step, with its settings
      const link = page.url();
      assert.match(link, /lstep=4/);
      await page.goto(link.replace('lstep=4', 'lstep=2'));
      await lesson.locator('#lesson-step-2[aria-current="step"]').waitFor(WAIT);
      await lesson.locator('lesson-vectors #figures').waitFor(WAIT);
      await page.keyboard.press('n');
      await lesson.locator('#lesson-step-3[aria-current="step"]').waitFor(WAIT);
      assert.equal(await lesson.locator('#speed').inputValue(), 'fast', 'the speed came with the link');
      assert.equal(Number(await lesson.locator('#lesson-steps').inputValue()), LIVE_STEPS, 'the steps came with the link');
      await context.close();
    });

  it('without WebGPU: the recording plays, marked as recorded; presenter view; the printed summary', async () => {
    const plain = await launchChromium(false);
    try {
      const { page } = await openPage(plain, built.offsite);
      await page.goto(`${built.site}?model=demo&panel=lesson&lstep=3&lspeed=fast`);
      const lesson = page.locator('lesson-panel');
      await lesson.locator('#lesson-mode[data-mode="recorded"]', { hasText: 'Recorded' }).waitFor(WAIT);
      await lesson.locator('#play').click();
      await lesson.locator('#lesson-status', { hasText: `Done: ${trace.facts.settings.steps} steps` }).waitFor(WAIT);
      await page.keyboard.press('4');
      const recordedFinal = trace.frames.at(-1)!.runs;
      for (const r of recordedFinal)
        assert.equal(await finalNdcg(page, r.k), Number(r.heldOut!.ndcg10.toFixed(3)), `recorded k = ${r.k}`);
      await screenshot(page, '44-lesson-recorded');

      await page.keyboard.press('f');
      await page.waitForURL(/present=1/);
      assert.equal(await page.locator('splade-app #workbench').isHidden(), true, 'presenter view shows the lesson alone');
      await screenshot(page, '45-lesson-presenter');
      await page.keyboard.press('f');

      await page.emulateMedia({ media: 'print' });
      assert.equal(await lesson.locator('#print-summary').isVisible(), true, 'print shows the summary');
      assert.equal(await lesson.locator('nav').isVisible(), false, 'print hides the controls');
      assert.equal(await page.locator('splade-app header').isVisible(), false, 'print hides the page header');
      await page.pdf({ path: join(ARTIFACTS, '46-lesson-summary.pdf'), format: 'A4' });
      await screenshot(page, '46-lesson-summary-print');
    } finally {
      await plain.close();
    }
  });

  it('without WebGPU at 1024x768: the banner opens the recording in one click; PageDown alone drives it through every step in presenter view, axe on each', async () => {
    const plain = await launchChromium(false);
    try {
      const { page } = await openPage(plain, built.offsite);
      await page.setViewportSize({ width: 1024, height: 768 });
      await page.goto(`${built.site}?model=demo&lspeed=fast`);
      const notice = page.locator('notice-banner#notice');
      await notice.locator('button[data-action="open-lesson"]', { hasText: 'Play the recorded lesson' }).waitFor(WAIT);
      assert.match(
        (await notice.locator('.box').textContent()) ?? '',
        /What still works without it: the Lesson plays a recording/,
      );
      await page.screenshot({ path: join(ARTIFACTS, '47-no-webgpu-banner-1024.png') });
      await notice.locator('button[data-action="open-lesson"]').click();
      await page.waitForURL(/panel=lesson/);
      const lesson = page.locator('lesson-panel');
      const mode = lesson.locator('#lesson-mode[data-mode="recorded"]');
      await mode.waitFor(WAIT);
      assert.ok(((await mode.boundingBox())?.y ?? 9999) < 768, 'the click brought the lesson onto the screen');

      // from here on, the keyboard alone
      await page.keyboard.press('f');
      await page.waitForURL(/present=1/);
      const shown: Record<string, string> = {
        '1': 'lesson-vectors #sparsity-claim',
        '2': 'lesson-head-growth #growth-caption',
        '3': 'lesson-training #training-claim',
        '4': '#summary-screen #takeaway',
      };
      const current = async () =>
        (await lesson.locator('nav button[aria-current="step"]').getAttribute('id'))!.replace('lesson-step-', '');
      const found: string[] = [];
      const presses: Record<string, number> = { '1': 0, '2': 0, '3': 0, '4': 0 };
      let step = '';
      for (let press = 0; press < 40; press++) {
        const now = await current();
        if (now !== step) {
          step = now;
          await lesson.locator(`section[data-step] ${shown[step]}`).first().waitFor(WAIT);
          if (step === '3') {
            // the first PageDown plays the training (a clicker has no Space); the recording plays fast
            await page.keyboard.press('PageDown');
            presses[step]++;
            await lesson.locator('#lesson-status', { hasText: `Done: ${trace.facts.settings.steps} steps` }).waitFor(WAIT);
          }
          // each comparing sentence against the recording's numbers shown beside it
          if (step === '1') await checkSparsityClaim(page);
          if (step === '2') await checkDivisionClaims(page);
          if (step === '3') await checkTrainingClaim(page);
          if (step === '4') await checkTakeaway(page);
          await page.waitForTimeout(300);
          // what the projector shows on arriving at the step (the screen), then the whole step
          await page.screenshot({ path: join(ARTIFACTS, `48-presenter-step${step}-1024.png`) });
          await screenshot(page, `48-presenter-step${step}-1024-full`);
          const violations = await axeViolations(page);
          if (violations.length) found.push(`step ${step}:\n${describeViolations(violations)}`);
        }
        const end = await lesson.locator('section[data-step]').evaluate((section) => section.getBoundingClientRect().bottom);
        if (step === '4' && end <= 768 + 8) break;
        await page.keyboard.press('PageDown');
        presses[step]++;
      }
      assert.equal(step, '4', 'PageDown reached the last step');
      assert.equal(await lesson.locator('#summary-screen #partial').count(), 0, 'the take-away is of the whole training');
      for (const key of ['PageDown', ' ', ' ']) await page.keyboard.press(key);
      assert.equal(await current(), '4', 'past the end, PageDown and Space stay on the last step (Space never goes back)');
      console.log(`[presenter] PageDown presses per step at 1024x768: ${JSON.stringify(presses)}`);
      assert.ok(presses['2'] <= 4, `step 2 takes ${presses['2']} presses (at most 4 screens)`);
      assert.deepEqual(found, [], `axe-core found violations in presenter view\n${found.join('\n')}`);
    } finally {
      await plain.close();
    }
  });

  it('links with values the page cannot use: the URL holds the value used, a note says which and why, never a blank page; a tab click scrolls', async () => {
    const plain = await launchChromium(false);
    try {
      const { page } = await openPage(plain, built.offsite);
      const cases = [
        {
          search: '?model=demo&panel=lesson&lsteps=0',
          said: /lsteps=0 was not used \(a lesson's training steps must be/,
          gone: /lsteps=/,
        },
        { search: '?model=demo&panel=lesson&lsteps=99999', said: /lsteps=99999 was not used/, gone: /lsteps=/ },
        {
          search: '?model=demo&k=-1',
          said: /k=-1 was not used \(k must be a number from 0\.25 to 64\): the page uses k=1/,
          gone: /k=-1/,
        },
        { search: '?model=demo&present&panel=nope', said: /panel=nope was not used/, gone: /panel=nope/ },
      ];
      for (const { search, said, gone } of cases) {
        await page.goto(`${built.site}${search}`);
        const note = page.locator('notice-banner#link-notice');
        await note.waitFor(WAIT);
        assert.match((await note.locator('.box').textContent()) ?? '', said, search);
        assert.doesNotMatch(new URL(page.url()).search, gone, `${search}: the URL holds the value used`);
        // the page is there: the lesson (presenting) or the head norms from precomputed figures
        await page
          .locator(/present|panel=lesson/.test(search) ? 'lesson-panel #lesson-mode' : 'head-norm-panel')
          .first()
          .waitFor(WAIT);
      }
      await screenshot(page, '49-link-corrected');

      // at 1024x768 the tabs sit below the setup cards: a tab click brings its panel onto the screen
      await page.setViewportSize({ width: 1024, height: 768 });
      await page.goto(`${built.site}?model=demo`);
      await page.locator('#tab-lesson').click();
      const mode = page.locator('lesson-panel #lesson-mode');
      await mode.waitFor(WAIT);
      const box = await mode.boundingBox();
      assert.ok(box && box.y >= 0 && box.y < 768, `the Lesson tab's click shows the lesson (its badge at y = ${box?.y})`);
    } finally {
      await plain.close();
    }
  });
});

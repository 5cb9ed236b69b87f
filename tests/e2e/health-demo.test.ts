// The training-health acceptance runs on the BUILT page, opt-in (`npm run test:e2e:health`, about 5 minutes on
// SwiftShader): the demo backbone trained on the lesson's generated task with lambdas far too large raises the
// collapse alarm, and with calibrated lambdas (`splade-lab calibrate`, see docs/page-guide.md) raises nothing while it learns.
// The densification run (k = 1) is in training.test.ts, part of every CI run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { lessonTaskFiles } from '../../src/contract/lesson/lesson-task-files.ts';
import { lessonTaskFor } from '../../src/contract/lesson/lesson-settings.ts';
import { openPage, screenshot } from './browser.ts';
import { useBuiltSite } from './site.ts';

/** The lesson's task for seed 1, as `splade-lab lesson --write-task` writes it. */
const TASK = lessonTaskFor(1);

const TRIPLETS = lessonTaskFiles(TASK).find((f) => f.path === 'triplets.tsv')!.text;

/** Probes from the task (two held-out queries, a document of each of their topics), as a user sets them for their data. */
const TASK_PROBES = {
  queries: [TASK.queries[0].text, TASK.queries[2].text],
  documents: ['ocean-0', 'music-0'].map((id) => TASK.corpus.find((d) => d.id === id)!.text),
};

/** A whole run on SwiftShader: about a second a step. */
const RUN_WAIT = { timeout: 540_000 };

interface PageRun {
  k: number;
  steps: number;
  lr: number;
  lambdaQueries: number;
  lambdaDocuments: number;
  batchSize: number;
  probes?: typeof TASK_PROBES;
}

/** Trains the demo on the lesson task from the Training tab with no dropout, to the end (no pause on alarms). */
async function trainToEnd(page: Page, site: string, run: PageRun): Promise<void> {
  await page.goto(`${site}?model=demo&k=${run.k}&panel=training`);
  await page.locator('model-picker #model-label').waitFor(RUN_WAIT);
  const panel = page.locator('train-panel');
  await panel
    .locator('#triplets')
    .setInputFiles({ name: 'lesson.tsv', mimeType: 'text/tab-separated-values', buffer: Buffer.from(TRIPLETS) });
  await panel.locator('#data', { hasText: 'lesson.tsv: 512 triplets' }).waitFor(RUN_WAIT);
  const fields: [string, number][] = [
    ['steps', run.steps],
    ['batchSize', run.batchSize],
    ['queryLength', 6],
    ['documentLength', 12],
    ['peakLr', run.lr],
    ['lambdaQueries', run.lambdaQueries],
    ['lambdaDocuments', run.lambdaDocuments],
    ['checkpointEvery', run.steps],
    ['dropout', 0],
  ];
  for (const [field, value] of fields) await panel.locator(`#${field}`).fill(String(value));
  await panel.locator('#health-settings summary').click();
  if (run.probes) {
    await panel.locator('#probe-queries').fill(run.probes.queries.join('\n'));
    await panel.locator('#probe-documents').fill(run.probes.documents.join('\n'));
  }
  await panel.locator('#start').click();
  await panel.locator('#train-status', { hasText: `Done: step ${run.steps} of ${run.steps}` }).waitFor(RUN_WAIT);
}

describe('the built page: training health on the demo backbone (opt-in)', { timeout: 1_200_000 }, () => {
  const built = useBuiltSite();

  it('lambdas far too large: the vectors empty and the collapse alarm is listed with its advice', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await trainToEnd(page, built.site, { k: 8, steps: 40, lr: 5e-3, lambdaQueries: 5, lambdaDocuments: 5, batchSize: 8 });
    const alarms = page.locator('train-panel #alarms');
    const collapse = alarms.locator('li[data-rule="collapse"]');
    assert.match((await collapse.textContent()) ?? '', /Vectors are emptying \(collapse\).*lower lambda_q and lambda_d/s);
    await screenshot(page, '17-training-collapse');
    await context.close();
  });

  it('calibrated lambdas (k = 32, lambda_q 2e-2, lambda_d 5e-3), probes from the task: sparse, learning, and nothing raised', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await trainToEnd(page, built.site, {
      k: 32,
      steps: 150,
      lr: 2e-3,
      lambdaQueries: 2e-2,
      lambdaDocuments: 5e-3,
      batchSize: 8,
      probes: TASK_PROBES,
    });
    const panel = page.locator('train-panel');
    // nothing raised: no alarm and no warning
    const raised = await panel.locator('#alarms li').allTextContents();
    assert.deepEqual(
      raised.map((text) => text.replace(/\s+/g, ' ').slice(0, 200)),
      [],
      'nothing raised',
    );
    const probes = panel.locator('#probes');
    assert.match((await probes.locator('#probe-step').textContent()) ?? '', /Probes at step 150/);
    // sparse: every probe from over half the vocabulary at the start (the demo's random head) to under a quarter, half
    // the densification alarm's threshold
    for (const card of await probes.locator('.card').all()) {
      const active = /Active (\d+) → (\d+)/.exec((await card.textContent()) ?? '');
      assert.ok(
        active && Number(active[1]) > 30522 / 2 && Number(active[2]) < 30522 / 4,
        `probe active dimensions: ${active?.[0]}`,
      );
      console.log(`probe: ${active[0]}`);
    }
    // learning: each held-out query scores the document of its own topic above the other's
    const now = async (row: number, column: number) =>
      Number(
        /^[\d.e+-]+/.exec(
          (
            (await probes.locator(`#probe-scores tbody tr:nth-child(${row}) td:nth-of-type(${column})`).textContent()) ?? ''
          ).trim(),
        )?.[0],
      );
    assert.ok(
      (await now(1, 1)) > (await now(1, 2)) && (await now(2, 2)) > (await now(2, 1)),
      'each query ranks its own topic first',
    );
    await screenshot(page, '18-training-calibrated');
    await context.close();
  });
});

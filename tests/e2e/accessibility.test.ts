// End-to-end accessibility test of the BUILT page: axe-core finds no violation on any tab of the demo; and, with no
// network (every request off 127.0.0.1 is refused), Evaluate and Training run on the data built into the page (the
// lesson's generated task, synthetic) with no violation once their results are shown. The other tabs' result states
// are checked where their tests reach them (see assertNoViolations).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PanelName } from '../../src/ui/url-state.ts';
import { assertNoViolations, axeViolations, describeViolations } from './accessibility.ts';
import { openPage, screenshot } from './browser.ts';
import { useBuiltSite, WAIT, waitForK } from './site.ts';

/** What each tab shows once its panel is rendered (the demo loaded). */
const RENDERED: Record<PanelName, string> = {
  norms: 'head-norm-panel norm-histogram svg g[data-series="before"] rect',
  preview: 'preview-panel #score',
  audit: 'audit-panel #audit-texts',
  training: 'train-panel #triplets',
  evaluate: 'eval-panel #evaluate',
  runs: 'runs-panel #no-runs',
  lesson: 'lesson-panel #lesson-mode',
};

describe('the built page: accessibility', { timeout: 600_000 }, () => {
  const built = useBuiltSite();

  it('axe-core finds no violation on any tab', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=demo&k=1`);
    await waitForK(page, 1);
    const tabs = await page.locator('[role="tablist"] [role="tab"]').evaluateAll((all) => all.map((tab) => tab.id));
    assert.deepEqual(tabs.map((id) => id.replace(/^tab-/, '')).sort(), Object.keys(RENDERED).sort(), 'the tabs the test visits');
    const found: string[] = [];
    for (const id of tabs) {
      const panel = id.replace(/^tab-/, '') as PanelName;
      await page.locator(`#${id}`).click();
      await page.locator(`#panel-${panel}`).waitFor(WAIT);
      await page.locator(`#panel-${panel} ${RENDERED[panel]}`).first().waitFor(WAIT);
      await screenshot(page, `50-accessibility-${panel}`);
      const violations = await axeViolations(page);
      if (violations.length) found.push(`on the ${panel} tab:\n${describeViolations(violations)}`);
    }
    assert.deepEqual(found, [], `axe-core found violations\n${found.join('\n')}`);
    await context.close();
  });

  it("offline, Training and Evaluate run on the lesson's generated task built into the page; no violation after results", async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=demo&k=4&panel=training`);
    await page.locator('model-picker #model-label').waitFor(WAIT);
    const training = page.locator('train-panel');
    await training.locator('#use-builtin').click();
    await training.locator('#data', { hasText: 'synthetic' }).waitFor(WAIT);
    // the generated texts are at most 11 tokens with [CLS] and [SEP]
    for (const [field, value] of [
      ['#steps', '1'],
      ['#queryLength', '8'],
      ['#documentLength', '16'],
    ])
      await training.locator(field).fill(value);
    await training.locator('#start').click();
    await training.locator('#train-status', { hasText: 'Done: step 1 of 1' }).waitFor(WAIT);
    await screenshot(page, '51-offline-builtin-trained');
    await assertNoViolations(page, 'on the Training tab after a run on the built-in triplets');

    await page.locator('#tab-evaluate').click();
    const evaluation = page.locator('eval-panel');
    await evaluation.locator('dataset-chooser #read-builtin').click();
    await evaluation.locator('dataset-chooser #read-sets', { hasText: 'lesson task (synthetic, built in)' }).waitFor(WAIT);
    await evaluation.locator('#queryLength').fill('8');
    await evaluation.locator('#documentLength').fill('16');
    await evaluation.locator('#evaluate').click();
    await evaluation.locator('#eval-status', { hasText: 'Done: ' }).or(evaluation.locator('#eval-error')).waitFor(WAIT);
    assert.equal(await evaluation.locator('#eval-error').count(), 0, 'the evaluation ran');
    const row = evaluation.locator('eval-results-table#latest tr.splade[data-k="4"]');
    assert.match((await row.textContent()) ?? '', /synthetic/, 'the results name the set as synthetic');
    await screenshot(page, '52-offline-builtin-evaluated');
    // (the index estimate, still measuring here, is checked with its figures in evaluation.test.ts)
    await assertNoViolations(page, 'on the Evaluate tab after evaluating the built-in set');
    await context.close();
    // the describe block's end checks that no page asked anything of another host
  });
});

// End-to-end accessibility test of the BUILT page: axe-core finds no violation on any tab of the demo.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PanelName } from '../../src/ui/url-state.ts';
import { axeViolations, describeViolations } from './accessibility.ts';
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
});

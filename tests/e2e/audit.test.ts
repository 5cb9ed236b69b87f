// End-to-end test of the BUILT page's Audit tab on the demo backbone: three short texts reported at k = 1, then k = 8
// compared with k = 1: terms gained and lost are listed (heaviest first, as many as the summary counts, at most 50), and
// the per-text rows agree with the page's own numbers (the reports' mean active dimensions at k = 1 and at k = 8, each
// row's change, the summary's mean change); axe-core finds no violation in the reports.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolations, describeViolations } from './accessibility.ts';
import { openPage, screenshot } from './browser.ts';
import { useBuiltSite, WAIT } from './site.ts';

const TEXTS = ['the doctor gave the patient a vaccine', 'a whale swims past the reef', 'the court ruled on the contract'];

/** The raw cell values of a report table's body rows. */
function rows(page: Page, table: string): Promise<string[][]> {
  return page
    .locator(`${table} tbody tr`)
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td as HTMLElement).dataset.value ?? '')));
}

describe('the built page: audit', { timeout: 300_000 }, () => {
  const built = useBuiltSite();

  it('compares k = 8 with k = 1 on three texts: gained and lost terms, and per-text rows that agree with the report', async () => {
    const { context, page } = await openPage(built.browser, built.offsite);
    await page.goto(`${built.site}?model=demo&k=1&panel=audit`);
    await page.locator('audit-panel #audit-texts').fill(TEXTS.join('\n'));
    await page.locator('audit-panel #audit-run').click(WAIT);
    const meanDims = Number(await page.locator('audit-corpus-report #corpus-mean-dims').getAttribute('data-value', WAIT));
    const weights = await rows(page, 'audit-corpus-report #corpus-weights');
    const [input, expansion] = weights.map((row) => Number(row[1]));
    assert.ok(Math.abs(input + expansion - 1) < 1e-9, `input and expansion weight shares add up to 1: ${input}, ${expansion}`);
    assert.ok((await page.locator('audit-corpus-report #corpus-chart g[data-kind]').count()) === 6, 'the chart has 6 bars');

    assert.equal(await page.locator('audit-panel #diff-k1').inputValue(), '1');
    assert.equal(await page.locator('audit-panel #diff-k2').inputValue(), '8');
    await page.locator('audit-panel #diff-run').click();
    await page.locator('audit-panel #audit-status', { hasText: 'Done: 3 texts compared' }).waitFor(WAIT);
    const perText = await rows(page, 'audit-diff-report #diff-per-text');
    assert.deepEqual(
      perText.map((row) => row[0]),
      TEXTS,
      'one row per text',
    );
    const [dims, againstDims, dimsChange] = [1, 2, 3].map((column) => perText.map((row) => Number(row[column])));
    dims.forEach((d, i) =>
      assert.equal(dimsChange[i], againstDims[i] - d, `${TEXTS[i]}: the change is k = 8's dims less k = 1's`),
    );
    const meanK1 = dims.reduce((a, b) => a + b, 0) / dims.length;
    assert.ok(Math.abs(meanK1 - meanDims) < 1e-9, `k = 1 dims per text ${dims} average ${meanK1}, the report says ${meanDims}`);
    assert.ok(
      againstDims.every((d, i) => d < dims[i]),
      `k = 8 keeps fewer terms: ${againstDims} against ${dims}`,
    );

    const gained = await rows(page, 'audit-diff-report #diff-gained');
    const lost = await rows(page, 'audit-diff-report #diff-lost');
    const summary = ((await page.locator('audit-diff-report #diff-summary').textContent()) ?? '').replace(/\s+/g, ' ');
    const counts = /(\d+) terms gained and (\d+) lost in all/.exec(summary);
    assert.ok(counts, summary);
    const [gainedTerms, lostTerms] = [Number(counts[1]), Number(counts[2])];
    assert.ok(lost.length > 0 && lost.length === Math.min(50, lostTerms), `${lost.length} lost rows of ${lostTerms}`);
    assert.ok(gained.length > 0 && gained.length === Math.min(50, gainedTerms), `${gained.length} gained rows of ${gainedTerms}`);
    const mass = (list: string[][]) => list.map((row) => Number(row[2]));
    for (const list of [gained, lost]) {
      const masses = mass(list);
      assert.ok(
        masses.every((m, i) => i === 0 || m <= masses[i - 1]),
        `heaviest first: ${masses}`,
      );
    }
    const meanChange = /active dimensions ([+-]?\d+\.\d) and FLOPS/.exec(summary);
    assert.ok(meanChange, summary);
    const changes = dimsChange.reduce((a, b) => a + b, 0) / dimsChange.length;
    assert.equal(meanChange[1], (changes > 0 ? '+' : '') + changes.toFixed(1), "the mean change is the rows' mean");
    await screenshot(page, '37-audit-diff-k1-k8');
    const violations = await axeViolations(page);
    assert.deepEqual(violations, [], `axe-core on the reports:\n${describeViolations(violations)}`);

    // The report at the page's k = 8 counts, per text, the k = 8 column's active dimensions on average.
    await page.locator('k-control button', { hasText: 'k = 8' }).click();
    await page.locator('audit-panel #audit-run', { hasText: 'Report at k = 8' }).click(WAIT);
    await page.locator('audit-corpus-report #corpus-summary', { hasText: 'At k = 8:' }).waitFor(WAIT);
    const meanDims8 = Number(await page.locator('audit-corpus-report #corpus-mean-dims').getAttribute('data-value'));
    const meanK8 = againstDims.reduce((a, b) => a + b, 0) / againstDims.length;
    assert.ok(
      Math.abs(meanK8 - meanDims8) < 1e-9,
      `k = 8 dims per text ${againstDims} average ${meanK8}, the report says ${meanDims8}`,
    );
    await context.close();
  });
});

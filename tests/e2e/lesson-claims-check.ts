// Checks, in the built page, that each of the lesson's comparing sentences says what the numbers shown beside it say:
// step 1's "sparse / most entries are zero / dense" against the vector's active dimensions, step 2's "fewer terms"
// against the figures table, step 3's leader against the played frames, step 4's leaders against the summary table.
// The sentences are computed by src/contract/lesson/lesson-claims.ts; these checks read only what a student sees.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

const lesson = (page: Page) => page.locator('lesson-panel');

/** A number as the page prints it, commas taken out: "16,060" and "16060" read the same. */
const plain = (text: string | null) => (text ?? '').replaceAll(',', '').trim();

/** The claim's text holds the number the page shows in a cell (commas aside). */
function says(claim: string, cell: string | null, what: string): void {
  assert.ok(plain(claim).includes(plain(cell)), `${what}: "${plain(cell)}" is not in the sentence: ${claim}`);
}

/** Step 1: the sentence's count is the heading's, and "sparse" / "most entries are zero" / "dense" follows the share. */
export async function checkSparsityClaim(page: Page): Promise<void> {
  const heading = (await lesson(page).locator('lesson-vectors #vector').getAttribute('heading')) ?? '';
  const match = /\((\d+) of (\d+) dimensions active\)/.exec(heading);
  assert.ok(match, `the vector's heading names its active dimensions: ${heading}`);
  const [active, size] = [Number(match[1]), Number(match[2])];
  const claim = lesson(page).locator('lesson-vectors #sparsity-claim');
  const text = (await claim.textContent()) ?? '';
  says(text, `${active} of its ${size}`, 'step 1');
  const share = active / size;
  assert.equal(await claim.getAttribute('data-sparse'), String(share <= 0.05), `step 1 "sparse" at ${active}/${size}`);
  assert.equal(await claim.getAttribute('data-mostly-zero'), String(share < 0.5), `step 1 "mostly zero" at ${active}/${size}`);
  assert.equal(/most entries are zero/.test(text), share > 0.05 && share < 0.5, `step 1: ${text}`);
  assert.equal(/is dense/.test(text), share >= 0.5, `step 1: ${text}`);
}

/** Step 2: each divided k's "fewer" follows the figures table's active dimensions, and its sentence quotes them. */
export async function checkDivisionClaims(page: Page): Promise<void> {
  const vectors = lesson(page).locator('lesson-vectors');
  const cell = (figure: string, k: string) => vectors.locator(`tr[data-figure="${figure}"] td[data-k="${k}"]`).textContent();
  const claims = vectors.locator('#division-claims li[data-k]');
  assert.ok((await claims.count()) > 0, 'step 2 compares the divided heads');
  for (const claim of await claims.all()) {
    const k = (await claim.getAttribute('data-k'))!;
    const text = (await claim.textContent()) ?? '';
    const [from, to] = [Number(await cell('activeDims', '1')), Number(await cell('activeDims', k))];
    says(text, `(${from.toLocaleString('en-US')} → ${to.toLocaleString('en-US')})`, `step 2, k = ${k}`);
    assert.equal(await claim.getAttribute('data-fewer'), String(to < from / 1.05), `step 2, k = ${k}: ${text}`);
    assert.equal(/fewer active dimensions/.test(text), to < from / 1.05, `step 2, k = ${k}: ${text}`);
  }
}

interface PlayedMeasure {
  step: number;
  runs: { k: number; ndcg10: number; flops: number }[];
}

/**
 * Step 3: the k the sentence puts ahead, and the one it calls cheapest to search, are the last measured frame's, with
 * their nDCG@10 and retrieval FLOPS quoted.
 */
export async function checkTrainingClaim(page: Page): Promise<void> {
  const measured = await page.evaluate((): PlayedMeasure | null => {
    const panel = document.querySelector('splade-app')!.shadowRoot!.querySelector('lesson-panel') as unknown as {
      playback: { frames: { step: number; runs: { k: number; heldOut: { ndcg10: number; flops: number } | null }[] }[] };
    };
    const frame = [...panel.playback.frames].reverse().find((f) => f.runs.every((r) => r.heldOut));
    const runs = frame?.runs.map((r) => ({ k: r.k, ndcg10: r.heldOut!.ndcg10, flops: r.heldOut!.flops }));
    return frame && runs ? { step: frame.step, runs } : null;
  });
  assert.ok(measured, 'the played frames measured the held-out queries');
  const claim = lesson(page).locator('lesson-training #training-claim');
  const text = (await claim.textContent()) ?? '';
  for (const run of measured.runs) says(text, run.ndcg10.toFixed(3), `step 3, k = ${run.k}`);
  const sorted = [...measured.runs].sort((a, b) => b.ndcg10 - a.ndcg10);
  const leader = sorted[0].ndcg10.toFixed(3) === sorted[1].ndcg10.toFixed(3) ? 'level' : String(sorted[0].k);
  assert.equal(await claim.getAttribute('data-ndcg-leader'), leader, `step 3: ${text}`);
  if (leader !== 'level') assert.match(text, new RegExp(`k = ${leader} is ahead`), 'step 3 names the leader');
  // FLOPS as the sentence prints them: three significant digits (four from 1000 up)
  const printed = (v: number) => String(Number(v.toPrecision(Math.abs(v) >= 1000 ? 4 : 3)));
  for (const run of measured.runs) says(text, printed(run.flops), `step 3 retrieval FLOPS, k = ${run.k}`);
  const byCost = [...measured.runs].sort((a, b) => a.flops - b.flops);
  const cheapest = printed(byCost[0].flops) === printed(byCost[1].flops) ? 'level' : String(byCost[0].k);
  assert.equal(await claim.getAttribute('data-cheapest'), cheapest, `step 3: ${text}`);
  if (cheapest !== 'level')
    assert.match(text, new RegExp(`k = ${cheapest} costs the least to search`), 'step 3 names the cheapest');
}

/**
 * Step 4: the take-away's two leaders are the summary table's (highest nDCG@10, lowest retrieval FLOPS, "level" where
 * the printed figures tie), its numbers are the table's, and "ahead on both counts" is said exactly when one k leads
 * both. Returns the leaders.
 */
export async function checkTakeaway(page: Page): Promise<{ ndcg: string; cheapest: string }> {
  const summary = lesson(page).locator('#summary-screen');
  const rows = await summary.locator('#trade tbody tr[data-k]').all();
  const table = await Promise.all(
    rows.map(async (row) => ({
      k: (await row.getAttribute('data-k'))!,
      ndcg: (await row.locator('td[data-measure="ndcg-after"]').textContent())!.trim(),
      flops: plain(await row.locator('td[data-measure="flops"]').textContent()),
    })),
  );
  const leader = (better: (a: number, b: number) => number, value: (r: (typeof table)[number]) => string) => {
    const sorted = [...table].sort((a, b) => better(Number(value(a)), Number(value(b))));
    return value(sorted[0]) === value(sorted[1]) ? 'level' : sorted[0].k;
  };
  const leaders = {
    ndcg: leader(
      (a, b) => b - a,
      (r) => r.ndcg,
    ),
    cheapest: leader(
      (a, b) => a - b,
      (r) => r.flops,
    ),
  };
  const takeaway = summary.locator('#takeaway');
  const text = (await takeaway.textContent()) ?? '';
  assert.equal(await takeaway.getAttribute('data-ndcg-leader'), leaders.ndcg, `step 4 nDCG@10 leader: ${text}`);
  assert.equal(await takeaway.getAttribute('data-cheapest'), leaders.cheapest, `step 4 FLOPS leader: ${text}`);
  for (const row of table) {
    says(text, row.ndcg, `step 4 nDCG@10 of k = ${row.k}`);
    says(text, row.flops, `step 4 retrieval FLOPS of k = ${row.k}`);
  }
  const both = leaders.ndcg !== 'level' && leaders.ndcg === leaders.cheapest;
  assert.equal(/is ahead on both counts/.test(text), both, `step 4: ${text}`);
  return leaders;
}

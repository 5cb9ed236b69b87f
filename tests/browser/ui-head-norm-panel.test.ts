// <head-norm-panel>: histogram, statistics and Table 1 together, the log-scale options, provenance, explanation, and
// a spike of rows of one length pointed out (explained for the demo), none for a smooth distribution.
import '../../src/ui/model/head-norm-panel.ts';
import type { HeadNormPanel } from '../../src/ui/model/head-norm-panel.ts';
import type { NormHistogram } from '../../src/ui/model/norm-histogram.ts';
import { precomputedPair } from '../../src/ui/model/precomputed-stats.ts';
import { demoNorms, events, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

const pair = precomputedPair(demoNorms('unit-test norms', 0.05, [2, 2.5, 3, 3.5]), 2, false);

describe('<head-norm-panel>', () => {
  it("shows the histogram, this head's statistics, the paper's table and where the figures come from", async () => {
    const el = await mount<HeadNormPanel>('head-norm-panel', { stats: pair, k: 2, target: 1.4, paperRow: 'ModernBERT-base' });
    inside(el, 'norm-histogram');
    inside(el, 'head-stats-table');
    expect(inside(el, 'paper-table1').getAttribute('highlight'), 'Table 1 highlight passed on').toBe('ModernBERT-base');
    expect(inside(el, '#provenance').textContent ?? '', 'provenance names the data').toMatch(/Precomputed.*unit-test norms/);
    expect(inside(el, 'panel-explainer').textContent ?? '', 'the explanation carries the formula').toMatch(/‖W_head\[v\] \/ k‖₂/);
  });

  it('asks for log-spaced bins and switches the count axis itself', async () => {
    const el = await mount<HeadNormPanel>('head-norm-panel', { stats: pair, k: 2 });
    const seen = events<{ logNorm: boolean }>(el, 'log-norm-change');
    inside<HTMLInputElement>(el, '#log-norm').click();
    expect(seen, 'log-norm-change sent').toHaveLength(1);
    expect(seen[0].logNorm, 'log-norm-change sent').toBe(true);
    inside<HTMLInputElement>(el, '#log-counts').click();
    await el.updateComplete;
    expect(inside<NormHistogram>(el, 'norm-histogram').logCounts, 'histogram counts on a log axis').toBeTruthy();
  });

  it('points out a bin far fuller than its neighbours, and for the demo says which rows those are', async () => {
    // 1,000 rows spread from 1 to 3 (about 25 a bin), and 400 more at one length (rows training left where they started)
    const norms = [...Array.from({ length: 1000 }, (_, i) => 1 + (2 * i) / 1000), ...Array.from({ length: 400 }, () => 1.7)];
    const spiky = precomputedPair(demoNorms('spike', 0.05, norms), 1, false);
    const el = await mount<HeadNormPanel>('head-norm-panel', { stats: spiky, k: 1, demo: true });
    const note = inside(el, '#spike-note');
    const text = (note.textContent ?? '').replace(/\s+/g, ' ');
    const rows = Number(note.getAttribute('data-rows'));
    expect(rows, `the tall bar's rows: ${rows}`).toBeGreaterThanOrEqual(400);
    expect(rows, `the tall bar's rows: ${rows}`).toBeLessThan(450);
    expect(text, text).toMatch(/rows \(\d+(\.\d)?%\) have a norm between 1\.\d+ and 1\.\d+ at k = 1/);
    expect(text, 'the demo note says what the rows are').toMatch(/warm start had no co-occurrence vector/);
    const other = await mount<HeadNormPanel>('head-norm-panel', { stats: spiky, k: 1, demo: false });
    expect(inside(other, '#spike-note').textContent ?? '', 'no demo words for another model').not.toMatch(/warm start/);
    const smooth = await mount<HeadNormPanel>('head-norm-panel', { stats: pair, k: 2 });
    expect(smooth.shadowRoot!.querySelector('#spike-note'), 'no note without a spike').toBeNull();
  });

  it('says what it is doing before statistics exist', async () => {
    const el = await mount<HeadNormPanel>('head-norm-panel', { busy: true });
    expect(el.shadowRoot?.textContent ?? '', 'busy text').toMatch(/Measuring the head/);
    inside(el, 'paper-table1');
  });
});

// <head-norm-panel>: histogram, statistics and Table 1 together, the log-scale options, provenance, explanation, and
// a spike of rows of one length pointed out (explained for the demo), none for a smooth distribution.
import '../../src/ui/model/head-norm-panel.ts';
import type { HeadNormPanel } from '../../src/ui/model/head-norm-panel.ts';
import type { NormHistogram } from '../../src/ui/model/norm-histogram.ts';
import { precomputedPair } from '../../src/ui/model/precomputed-stats.ts';
import { check, demoNorms, events, inside, mount } from './ui-fixture.ts';

const pair = precomputedPair(demoNorms('unit-test norms', 0.05, [2, 2.5, 3, 3.5]), 2, false);

describe('<head-norm-panel>', () => {
  it("shows the histogram, this head's statistics, the paper's table and where the figures come from", async () => {
    const el = await mount<HeadNormPanel>('head-norm-panel', { stats: pair, k: 2, target: 1.4, paperRow: 'ModernBERT-base' });
    inside(el, 'norm-histogram');
    inside(el, 'head-stats-table');
    check(inside(el, 'paper-table1').getAttribute('highlight') === 'ModernBERT-base', 'Table 1 highlight passed on');
    check(/Precomputed.*unit-test norms/.test(inside(el, '#provenance').textContent ?? ''), 'provenance names the data');
    check(/‖W_head\[v\] \/ k‖₂/.test(inside(el, 'panel-explainer').textContent ?? ''), 'the explanation carries the formula');
  });

  it('asks for log-spaced bins and switches the count axis itself', async () => {
    const el = await mount<HeadNormPanel>('head-norm-panel', { stats: pair, k: 2 });
    const seen = events<{ logNorm: boolean }>(el, 'log-norm-change');
    inside<HTMLInputElement>(el, '#log-norm').click();
    check(seen.length === 1 && seen[0].logNorm === true, 'log-norm-change sent');
    inside<HTMLInputElement>(el, '#log-counts').click();
    await el.updateComplete;
    check(inside<NormHistogram>(el, 'norm-histogram').logCounts, 'histogram counts on a log axis');
  });

  it('points out a bin far fuller than its neighbours, and for the demo says which rows those are', async () => {
    // 1,000 rows spread from 1 to 3 (about 25 a bin), and 400 more at one length (rows training left where they started)
    const norms = [...Array.from({ length: 1000 }, (_, i) => 1 + (2 * i) / 1000), ...Array.from({ length: 400 }, () => 1.7)];
    const spiky = precomputedPair(demoNorms('spike', 0.05, norms), 1, false);
    const el = await mount<HeadNormPanel>('head-norm-panel', { stats: spiky, k: 1, demo: true });
    const note = inside(el, '#spike-note');
    const text = (note.textContent ?? '').replace(/\s+/g, ' ');
    const rows = Number(note.getAttribute('data-rows'));
    check(rows >= 400 && rows < 450, `the tall bar's rows: ${rows}`);
    check(/rows \(\d+(\.\d)?%\) have a norm between 1\.\d+ and 1\.\d+ at k = 1/.test(text), text);
    check(/warm start had no co-occurrence vector/.test(text), 'the demo note says what the rows are');
    const other = await mount<HeadNormPanel>('head-norm-panel', { stats: spiky, k: 1, demo: false });
    check(!/warm start/.test(inside(other, '#spike-note').textContent ?? ''), 'no demo words for another model');
    const smooth = await mount<HeadNormPanel>('head-norm-panel', { stats: pair, k: 2 });
    check(smooth.shadowRoot!.querySelector('#spike-note') === null, 'no note without a spike');
  });

  it('says what it is doing before statistics exist', async () => {
    const el = await mount<HeadNormPanel>('head-norm-panel', { busy: true });
    check(/Measuring the head/.test(el.shadowRoot?.textContent ?? ''), 'busy text');
    inside(el, 'paper-table1');
  });
});

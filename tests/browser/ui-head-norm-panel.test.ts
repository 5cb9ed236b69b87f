// <head-norm-panel>: histogram, statistics and Table 1 together, the log-scale options, provenance, explanation.
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

  it('says what it is doing before statistics exist', async () => {
    const el = await mount<HeadNormPanel>('head-norm-panel', { busy: true });
    check(/Measuring the head/.test(el.shadowRoot?.textContent ?? ''), 'busy text');
    inside(el, 'paper-table1');
  });
});

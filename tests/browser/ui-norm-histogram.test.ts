// <norm-histogram>: one bar per non-empty bin for each series on shared bins, labelled axes, mean and target lines;
// at k = 1 one series (the divided head is the head).
import '../../src/ui/model/norm-histogram.ts';
import type { NormHistogram } from '../../src/ui/model/norm-histogram.ts';
import { precomputedPair } from '../../src/ui/model/precomputed-stats.ts';
import { allInside, check, demoNorms, inside, mount } from './ui-fixture.ts';

const demo = demoNorms(
  'test norms',
  0.1,
  Array.from({ length: 500 }, (_, i) => 1 + (i % 50) / 25),
);

describe('<norm-histogram>', () => {
  for (const logNorm of [false, true]) {
    it(`draws a bar for every non-empty bin of both series (${logNorm ? 'log' : 'linear'} norm axis)`, async () => {
      const pair = precomputedPair(demo, 4, logNorm);
      const el = await mount<NormHistogram>('norm-histogram', { original: pair.before, rescaled: pair.after, k: 4, target: 1.4 });
      for (const [name, stats] of [
        ['before', pair.before],
        ['after', pair.after],
      ] as const) {
        const bars = allInside(el, `g[data-series="${name}"] rect`);
        const nonEmpty = stats.histogram.counts.filter((c) => c > 0).length;
        check(bars.length === nonEmpty, `${name}: ${bars.length} bars for ${nonEmpty} non-empty bins`);
        const total = bars.reduce((sum, bar) => sum + Number(bar.getAttribute('data-count')), 0);
        check(total === demo.norms.length, `${name}: bars hold ${total} rows of ${demo.norms.length}`);
      }
      const axis = allInside(el, 'text.label').map((t) => t.textContent ?? '');
      check(
        axis.some((t) => t.includes('row L2 norm') && t.includes('(log scale)') === logNorm),
        `norm axis label: ${axis.join(' | ')}`,
      );
      check(/target 1\.400/.test(inside(el, 'svg').textContent ?? ''), 'the target line is labelled');
    });
  }

  it('at k = 1 draws the head once, with one legend entry, not the same bars twice', async () => {
    const pair = precomputedPair(demo, 1, false);
    const el = await mount<NormHistogram>('norm-histogram', { original: pair.before, rescaled: pair.after, k: 1 });
    check(allInside(el, 'g[data-series="before"] rect').length > 0, 'the head as loaded is drawn');
    check(allInside(el, 'g[data-series="after"]').length === 0, 'no second, identical series');
    const legend = inside(el, '.legend').textContent ?? '';
    check(/k = 1 \(head as loaded\)/.test(legend) && !/W_head \/ k/.test(legend), `legend: ${legend}`);
    check(/k = 1 divides nothing/.test(inside(el, 'desc').textContent ?? ''), 'the description says so');
  });

  it('describes both means for screen readers and says when there is nothing to draw', async () => {
    const pair = precomputedPair(demo, 2, false);
    const el = await mount<NormHistogram>('norm-histogram', { original: pair.before, rescaled: pair.after, k: 2 });
    const desc = inside(el, 'desc').textContent ?? '';
    check(
      desc.includes(pair.before.summary.mean.toFixed(3)) && desc.includes(pair.after.summary.mean.toFixed(3)),
      `desc: ${desc}`,
    );
    const empty = await mount<NormHistogram>('norm-histogram', {});
    check(/No statistics yet/.test(empty.shadowRoot?.textContent ?? ''), 'empty state text');
  });
});

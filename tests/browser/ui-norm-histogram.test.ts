// <norm-histogram>: one bar per non-empty bin for each series on shared bins, labelled axes, mean and target lines;
// at k = 1 one series (the divided head is the head).
import '../../src/ui/model/norm-histogram.ts';
import type { NormHistogram } from '../../src/ui/model/norm-histogram.ts';
import { precomputedPair } from '../../src/ui/model/precomputed-stats.ts';
import { allInside, demoNorms, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

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
        expect(bars.length, `${name}: ${bars.length} bars for ${nonEmpty} non-empty bins`).toBe(nonEmpty);
        const total = bars.reduce((sum, bar) => sum + Number(bar.getAttribute('data-count')), 0);
        expect(total, `${name}: bars hold ${total} rows of ${demo.norms.length}`).toBe(demo.norms.length);
      }
      const axis = allInside(el, 'text.label').map((t) => t.textContent ?? '');
      expect(
        axis.some((t) => t.includes('row L2 norm') && t.includes('(log scale)') === logNorm),
        `norm axis label: ${axis.join(' | ')}`,
      ).toBe(true);
      expect(inside(el, 'svg').textContent ?? '', 'the target line is labelled').toMatch(/target 1\.400/);
    });
  }

  it('at k = 1 draws the head once, with one legend entry, not the same bars twice', async () => {
    const pair = precomputedPair(demo, 1, false);
    const el = await mount<NormHistogram>('norm-histogram', { original: pair.before, rescaled: pair.after, k: 1 });
    expect(allInside(el, 'g[data-series="before"] rect').length, 'the head as loaded is drawn').toBeGreaterThan(0);
    expect(allInside(el, 'g[data-series="after"]'), 'no second, identical series').toHaveLength(0);
    const legend = inside(el, '.legend').textContent ?? '';
    expect(legend, `legend: ${legend}`).toMatch(/k = 1 \(head as loaded\)/);
    expect(legend, `legend: ${legend}`).not.toMatch(/W_head \/ k/);
    expect(inside(el, 'desc').textContent ?? '', 'the description says so').toMatch(/k = 1 divides nothing/);
  });

  it('describes both means for screen readers and says when there is nothing to draw', async () => {
    const pair = precomputedPair(demo, 2, false);
    const el = await mount<NormHistogram>('norm-histogram', { original: pair.before, rescaled: pair.after, k: 2 });
    const desc = inside(el, 'desc').textContent ?? '';
    expect(desc, `desc: ${desc}`).toContain(pair.before.summary.mean.toFixed(3));
    expect(desc, `desc: ${desc}`).toContain(pair.after.summary.mean.toFixed(3));
    const empty = await mount<NormHistogram>('norm-histogram', {});
    expect(empty.shadowRoot?.textContent ?? '', 'empty state text').toMatch(/No statistics yet/);
  });
});

// <loss-chart>: one line per series with its own colour and dash pattern, a log y axis by default (linear by
// keyboard), and a text summary of each line's first and last value for screen readers.
import { sendKeys } from '@web/test-runner-commands';
import '../../src/ui/common/loss-chart.ts';
import type { ChartSeries, LossChart } from '../../src/ui/common/loss-chart.ts';
import { allInside, check, cleanup, inside, mount } from './ui-fixture.ts';

/** Two curves three orders of magnitude apart, like k = 1 and k = 16 at the start of the demo. */
const SERIES: ChartSeries[] = [
  { label: 'k = 1', points: [1, 2, 3, 4].map((x) => ({ x, y: 3000 / x })) },
  { label: 'k = 16', points: [1, 2, 3, 4].map((x) => ({ x, y: 2.5 - x / 10 })) },
];

/** The vertical pixel positions of a series' points. */
function ys(chart: LossChart, label: string): number[] {
  const points = inside(chart, `g[data-series="${label}"] polyline`).getAttribute('points') ?? '';
  return points.split(' ').map((p) => Number(p.split(',')[1]));
}

describe('<loss-chart>', () => {
  it('draws one line per series, each with its own colour and dash pattern, and one legend entry each', async () => {
    cleanup();
    const el = await mount<LossChart>('loss-chart', { series: SERIES, heading: 'Ranking loss', yLabel: 'L_rank' });
    const lines = allInside(el, 'g.series');
    check(lines.length === 2, `${lines.length} lines`);
    for (const s of SERIES) check(ys(el, s.label).length === s.points.length, `${s.label}: one vertex per point`);
    const colours = new Set(lines.map((g) => g.getAttribute('stroke')));
    const dashes = new Set(lines.map((g) => g.querySelector('polyline')?.getAttribute('stroke-dasharray')));
    check(colours.size === 2 && dashes.size === 2, `colours ${[...colours]}, dashes ${[...dashes]}`);
    check(allInside(el, '#summary li').length === 2, 'one legend entry per series');
  });

  it('uses a log y axis by default: equal ratios are equal distances, and the axis says so', async () => {
    cleanup();
    const series = [{ label: 'decades', points: [1, 10, 100, 1000].map((y, i) => ({ x: i + 1, y })) }];
    const el = await mount<LossChart>('loss-chart', { series, yLabel: 'loss' });
    const [a, b, c, d] = ys(el, 'decades');
    check(Math.abs(a - b - (b - c)) < 0.2 && Math.abs(b - c - (c - d)) < 0.2, `decades are evenly spaced: ${[a, b, c, d]}`);
    check(/\(log scale\)/.test(inside(el, '#y-label').textContent ?? ''), 'the y axis is labelled log scale');
    const ticks = allInside(el, 'text.tick-y').map((t) => t.textContent);
    check(ticks.includes('1') && ticks.includes('1000'), `ticks at powers of ten: ${ticks.join(' ')}`);
  });

  it('fits a linear axis to the values when told not to start at 0 (row norms that move in their 3rd digit)', async () => {
    cleanup();
    const series = [{ label: 'norm', points: [2.494, 2.5, 2.51].map((y, i) => ({ x: i + 1, y })) }];
    const fitted = await mount<LossChart>('loss-chart', { series, yLabel: 'norm', log: false, zero: false });
    const ticks = allInside(fitted, 'text.tick-y').map((t) => Number(t.textContent));
    check(ticks.length >= 2 && Math.min(...ticks) > 2 && Math.max(...ticks) < 3, `ticks around the values: ${ticks.join(' ')}`);
    const [a, , c] = ys(fitted, 'norm');
    const fromZero = await mount<LossChart>('loss-chart', { series, yLabel: 'norm', log: false });
    const [z1, , z3] = ys(fromZero, 'norm');
    check(a - c > 10 * (z1 - z3), `the fitted line spans far more height: ${a - c} against ${z1 - z3}`);
  });

  it('summarises each line in text (first and last value with their steps), also in the SVG description', async () => {
    cleanup();
    const el = await mount<LossChart>('loss-chart', { series: SERIES, heading: 'Ranking loss' });
    const summary = inside(el, '#summary').textContent?.replace(/\s+/g, ' ') ?? '';
    check(summary.includes('k = 1: 3000 at step 1, 750 at step 4.'), summary);
    check(summary.includes('k = 16: 2.4 at step 1, 2.1 at step 4.'), summary);
    check((inside(el, 'desc').textContent ?? '').includes('k = 1: 3000 at step 1'), 'the SVG description has the summary');
    const empty = await mount<LossChart>('loss-chart', {});
    check(/No steps yet/.test(inside(empty, '#summary').textContent ?? ''), 'empty state');
  });

  it('switches to a linear axis from the keyboard (Space on the checkbox)', async () => {
    cleanup();
    const el = await mount<LossChart>('loss-chart', { series: SERIES, yLabel: 'loss' });
    inside<HTMLInputElement>(el, '#log').focus();
    await sendKeys({ press: 'Space' });
    await el.updateComplete;
    check(!el.log, 'log is off');
    check(!/log scale/.test(inside(el, '#y-label').textContent ?? ''), 'the axis label no longer says log scale');
    const [a, b, c] = ys(el, 'k = 1');
    // Linear: 3000 → 1500 is three times as far as 1500 → 1000 (on a log axis it would be 1.7 times).
    check(Math.abs(b - a) > 2.5 * Math.abs(c - b), `linear spacing (${a}, ${b}, ${c})`);
  });
});

// <loss-chart>: one line per series with its own colour and dash pattern, a log y axis by default (linear by
// keyboard), and a text summary of each line's first and last value for screen readers.
import { sendKeys } from '@web/test-runner-commands';
import '../../src/ui/common/loss-chart.ts';
import type { ChartSeries, LossChart } from '../../src/ui/common/loss-chart.ts';
import { allInside, cleanup, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

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
    expect(lines, `${lines.length} lines`).toHaveLength(2);
    for (const s of SERIES) expect(ys(el, s.label).length, `${s.label}: one vertex per point`).toBe(s.points.length);
    const colours = new Set(lines.map((g) => g.getAttribute('stroke')));
    const dashes = new Set(lines.map((g) => g.querySelector('polyline')?.getAttribute('stroke-dasharray')));
    expect(colours.size, `colours ${[...colours]}, dashes ${[...dashes]}`).toBe(2);
    expect(dashes.size, `colours ${[...colours]}, dashes ${[...dashes]}`).toBe(2);
    expect(allInside(el, '#summary li'), 'one legend entry per series').toHaveLength(2);
  });

  it('uses a log y axis by default: equal ratios are equal distances, and the axis says so', async () => {
    cleanup();
    const series = [{ label: 'decades', points: [1, 10, 100, 1000].map((y, i) => ({ x: i + 1, y })) }];
    const el = await mount<LossChart>('loss-chart', { series, yLabel: 'loss' });
    const [a, b, c, d] = ys(el, 'decades');
    expect(Math.abs(a - b - (b - c)), `decades are evenly spaced: ${[a, b, c, d]}`).toBeLessThan(0.2);
    expect(Math.abs(b - c - (c - d)), `decades are evenly spaced: ${[a, b, c, d]}`).toBeLessThan(0.2);
    expect(inside(el, '#y-label').textContent ?? '', 'the y axis is labelled log scale').toMatch(/\(log scale\)/);
    const ticks = allInside(el, 'text.tick-y').map((t) => t.textContent);
    expect(ticks, `ticks at powers of ten: ${ticks.join(' ')}`).toContain('1');
    expect(ticks, `ticks at powers of ten: ${ticks.join(' ')}`).toContain('1000');
  });

  it('fits a linear axis to the values when told not to start at 0 (row norms that move in their 3rd digit)', async () => {
    cleanup();
    const series = [{ label: 'norm', points: [2.494, 2.5, 2.51].map((y, i) => ({ x: i + 1, y })) }];
    const fitted = await mount<LossChart>('loss-chart', { series, yLabel: 'norm', log: false, zero: false });
    const ticks = allInside(fitted, 'text.tick-y').map((t) => Number(t.textContent));
    expect(ticks.length, `ticks around the values: ${ticks.join(' ')}`).toBeGreaterThanOrEqual(2);
    expect(Math.min(...ticks), `ticks around the values: ${ticks.join(' ')}`).toBeGreaterThan(2);
    expect(Math.max(...ticks), `ticks around the values: ${ticks.join(' ')}`).toBeLessThan(3);
    const [a, , c] = ys(fitted, 'norm');
    const fromZero = await mount<LossChart>('loss-chart', { series, yLabel: 'norm', log: false });
    const [z1, , z3] = ys(fromZero, 'norm');
    expect(a - c, `the fitted line spans far more height: ${a - c} against ${z1 - z3}`).toBeGreaterThan(10 * (z1 - z3));
  });

  it('summarises each line in text (first and last value with their steps), also in the SVG description', async () => {
    cleanup();
    const el = await mount<LossChart>('loss-chart', { series: SERIES, heading: 'Ranking loss' });
    const summary = inside(el, '#summary').textContent?.replace(/\s+/g, ' ') ?? '';
    expect(summary, summary).toContain('k = 1: 3000 at step 1, 750 at step 4.');
    expect(summary, summary).toContain('k = 16: 2.4 at step 1, 2.1 at step 4.');
    expect(inside(el, 'desc').textContent ?? '', 'the SVG description has the summary').toContain('k = 1: 3000 at step 1');
    const empty = await mount<LossChart>('loss-chart', {});
    expect(inside(empty, '#summary').textContent ?? '', 'empty state').toMatch(/No steps yet/);
  });

  it('switches to a linear axis from the keyboard (Space on the checkbox)', async () => {
    cleanup();
    const el = await mount<LossChart>('loss-chart', { series: SERIES, yLabel: 'loss' });
    inside<HTMLInputElement>(el, '#log').focus();
    await sendKeys({ press: 'Space' });
    await el.updateComplete;
    expect(el.log, 'log is off').toBeFalsy();
    expect(inside(el, '#y-label').textContent ?? '', 'the axis label no longer says log scale').not.toMatch(/log scale/);
    const [a, b, c] = ys(el, 'k = 1');
    // Linear: 3000 → 1500 is three times as far as 1500 → 1000 (on a log axis it would be 1.7 times).
    expect(Math.abs(b - a), `linear spacing (${a}, ${b}, ${c})`).toBeGreaterThan(2.5 * Math.abs(c - b));
  });
});

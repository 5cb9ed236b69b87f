// <k-control>: slider (log2 scale, keyboard), number field and presets all report k; invalid numbers are refused.
import { sendKeys } from '@web/test-runner-commands';
import '../../src/ui/model/k-control.ts';
import type { KControl } from '../../src/ui/model/k-control.ts';
import { allInside, events, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

describe('<k-control>', () => {
  it('shows k in the number field and marks the matching preset pressed', async () => {
    const el = await mount<KControl>('k-control', { k: 4 });
    expect(inside<HTMLInputElement>(el, '#number').value, 'number field shows 4').toBe('4');
    const pressed = allInside(el, '.presets button[aria-pressed="true"]');
    expect(pressed, 'only the k = 4 preset is pressed').toHaveLength(1);
    expect(pressed[0].textContent?.trim(), 'only the k = 4 preset is pressed').toBe('k = 4');
    expect(inside(el, '#slider').getAttribute('aria-valuetext'), 'slider announces k = 4').toBe('k = 4');
  });

  it('reports 2^position from the slider and the typed number', async () => {
    const el = await mount<KControl>('k-control', { k: 1 });
    const seen = events<{ k: number }>(el, 'k-change');
    const slider = inside<HTMLInputElement>(el, '#slider');
    slider.value = '3';
    slider.dispatchEvent(new Event('input'));
    const number = inside<HTMLInputElement>(el, '#number');
    number.value = '2.5';
    number.dispatchEvent(new Event('change'));
    expect(seen, `two k-change events, got ${seen.length}`).toHaveLength(2);
    expect(Math.abs(seen[0].k - 8), 'slider at 3').toBeLessThanOrEqual(1e-9);
    expect(Math.abs(seen[1].k - 2.5), 'typed 2.5').toBeLessThanOrEqual(1e-9);
  });

  it('refuses a k outside its range without reporting it', async () => {
    const el = await mount<KControl>('k-control', { k: 1 });
    const seen = events<{ k: number }>(el, 'k-change');
    const number = inside<HTMLInputElement>(el, '#number');
    number.value = '0';
    number.dispatchEvent(new Event('change'));
    expect(seen, 'k = 0 was reported').toHaveLength(0);
    expect(number.validity.valid, 'the field is marked invalid').toBeFalsy();
  });

  it('is keyboard operable: ArrowRight four times doubles k, a preset answers Enter', async () => {
    const el = await mount<KControl>('k-control', { k: 2 });
    const seen = events<{ k: number }>(el, 'k-change');
    inside<HTMLInputElement>(el, '#slider').focus();
    for (let i = 0; i < 4; i++) await sendKeys({ press: 'ArrowRight' });
    expect(Math.abs(seen[seen.length - 1].k - 4), 'after four ArrowRight presses').toBeLessThanOrEqual(1e-9);
    (allInside(el, '.presets button')[4] as HTMLButtonElement).focus();
    await sendKeys({ press: 'Enter' });
    expect(Math.abs(seen[seen.length - 1].k - 16), 'Enter on the k = 16 preset').toBeLessThanOrEqual(1e-9);
  });
});

// <k-control>: slider (log2 scale, keyboard), number field and presets all report k; invalid numbers are refused.
import { sendKeys } from '@web/test-runner-commands';
import '../../src/ui/model/k-control.ts';
import type { KControl } from '../../src/ui/model/k-control.ts';
import { allInside, check, events, inside, mount, near } from './ui-fixture.ts';

describe('<k-control>', () => {
  it('shows k in the number field and marks the matching preset pressed', async () => {
    const el = await mount<KControl>('k-control', { k: 4 });
    check(inside<HTMLInputElement>(el, '#number').value === '4', 'number field shows 4');
    const pressed = allInside(el, '.presets button[aria-pressed="true"]');
    check(pressed.length === 1 && pressed[0].textContent?.trim() === 'k = 4', 'only the k = 4 preset is pressed');
    check(inside(el, '#slider').getAttribute('aria-valuetext') === 'k = 4', 'slider announces k = 4');
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
    check(seen.length === 2, `two k-change events, got ${seen.length}`);
    near(seen[0].k, 8, 1e-9, 'slider at 3');
    near(seen[1].k, 2.5, 1e-9, 'typed 2.5');
  });

  it('refuses a k outside its range without reporting it', async () => {
    const el = await mount<KControl>('k-control', { k: 1 });
    const seen = events<{ k: number }>(el, 'k-change');
    const number = inside<HTMLInputElement>(el, '#number');
    number.value = '0';
    number.dispatchEvent(new Event('change'));
    check(seen.length === 0, 'k = 0 was reported');
    check(!number.validity.valid, 'the field is marked invalid');
  });

  it('is keyboard operable: ArrowRight four times doubles k, a preset answers Enter', async () => {
    const el = await mount<KControl>('k-control', { k: 2 });
    const seen = events<{ k: number }>(el, 'k-change');
    inside<HTMLInputElement>(el, '#slider').focus();
    for (let i = 0; i < 4; i++) await sendKeys({ press: 'ArrowRight' });
    near(seen[seen.length - 1].k, 4, 1e-9, 'after four ArrowRight presses');
    (allInside(el, '.presets button')[4] as HTMLButtonElement).focus();
    await sendKeys({ press: 'Enter' });
    near(seen[seen.length - 1].k, 16, 1e-9, 'Enter on the k = 16 preset');
  });
});

// <suggested-k>: k = mean norm / target, clamped to the k range, applied with one button; the target is editable.
import '../../src/ui/model/suggested-k.ts';
import { suggestK, type SuggestedK } from '../../src/ui/model/suggested-k.ts';
import { K_MAX, K_MIN } from '../../src/ui/url-state.ts';
import { events, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

describe('<suggested-k>', () => {
  it('suggests mean / target, kept inside the k range', () => {
    expect(Math.abs(suggestK(2.553, 1.4) - 2.553 / 1.4), 'ModernBERT-base at target 1.40').toBeLessThanOrEqual(1e-12);
    expect(suggestK(1000, 1), 'clamped to the k control range').toBe(K_MAX);
    expect(suggestK(0.001, 1), 'clamped to the k control range').toBe(K_MIN);
  });

  it('shows the arithmetic and applies the suggestion', async () => {
    const el = await mount<SuggestedK>('suggested-k', { meanNorm: 2.5, target: 1.25 });
    expect(inside(el, '#suggestion').textContent ?? '', 'the division is shown').toMatch(/2\.500 \/ 1\.250 ≈ 2/);
    const seen = events<{ k: number }>(el, 'k-change');
    inside<HTMLButtonElement>(el, 'button').click();
    expect(Math.abs(seen[0].k - 2), 'suggested k').toBeLessThanOrEqual(1e-9);
  });

  it('reports a new target and refuses a non-positive one', async () => {
    const el = await mount<SuggestedK>('suggested-k', { meanNorm: 2.5 });
    const seen = events<{ target: number }>(el, 'target-change');
    const input = inside<HTMLInputElement>(el, '#target');
    input.value = '-1';
    input.dispatchEvent(new Event('change'));
    input.value = '0.5';
    input.dispatchEvent(new Event('change'));
    expect(seen, `target events: ${JSON.stringify(seen)}`).toHaveLength(1);
    expect(seen[0].target, `target events: ${JSON.stringify(seen)}`).toBe(0.5);
  });

  it('offers no suggestion before the head has been measured', async () => {
    const el = await mount<SuggestedK>('suggested-k', {});
    expect(el.shadowRoot?.querySelector('#suggestion'), 'no suggestion without a mean').toBeNull();
    expect(el.shadowRoot?.querySelector('button'), 'no suggestion without a mean').toBeNull();
  });
});

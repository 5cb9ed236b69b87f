// <suggested-k>: k = mean norm / target, clamped to the k range, applied with one button; the target is editable.
import '../../src/ui/model/suggested-k.ts';
import { suggestK, type SuggestedK } from '../../src/ui/model/suggested-k.ts';
import { K_MAX, K_MIN } from '../../src/ui/url-state.ts';
import { check, events, inside, mount, near } from './ui-fixture.ts';

describe('<suggested-k>', () => {
  it('suggests mean / target, kept inside the k range', () => {
    near(suggestK(2.553, 1.4), 2.553 / 1.4, 1e-12, 'ModernBERT-base at target 1.40');
    check(suggestK(1000, 1) === K_MAX && suggestK(0.001, 1) === K_MIN, 'clamped to the k control range');
  });

  it('shows the arithmetic and applies the suggestion', async () => {
    const el = await mount<SuggestedK>('suggested-k', { meanNorm: 2.5, target: 1.25 });
    check(/2\.500 \/ 1\.250 ≈ 2/.test(inside(el, '#suggestion').textContent ?? ''), 'the division is shown');
    const seen = events<{ k: number }>(el, 'k-change');
    inside<HTMLButtonElement>(el, 'button').click();
    near(seen[0].k, 2, 1e-9, 'suggested k');
  });

  it('reports a new target and refuses a non-positive one', async () => {
    const el = await mount<SuggestedK>('suggested-k', { meanNorm: 2.5 });
    const seen = events<{ target: number }>(el, 'target-change');
    const input = inside<HTMLInputElement>(el, '#target');
    input.value = '-1';
    input.dispatchEvent(new Event('change'));
    input.value = '0.5';
    input.dispatchEvent(new Event('change'));
    check(seen.length === 1 && seen[0].target === 0.5, `target events: ${JSON.stringify(seen)}`);
  });

  it('offers no suggestion before the head has been measured', async () => {
    const el = await mount<SuggestedK>('suggested-k', {});
    check(
      el.shadowRoot?.querySelector('#suggestion') === null && el.shadowRoot?.querySelector('button') === null,
      'no suggestion without a mean',
    );
  });
});

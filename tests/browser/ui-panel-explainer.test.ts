// <panel-explainer>: a closed-by-default disclosure whose summary opens the explanation.
import '../../src/ui/common/panel-explainer.ts';
import type { PanelExplainer } from '../../src/ui/common/panel-explainer.ts';
import { inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

describe('<panel-explainer>', () => {
  it('opens on its summary and shows the slotted text', async () => {
    const el = await mount<PanelExplainer>('panel-explainer', {});
    el.innerHTML = '<p>the formula</p>';
    const details = inside<HTMLDetailsElement>(el, 'details');
    expect(details.open, 'closed, with the question').toBeFalsy();
    expect(inside(el, 'summary').textContent, 'closed, with the question').toBe('What am I looking at?');
    inside<HTMLElement>(el, 'summary').click();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(details.open, 'opened').toBeTruthy();
    expect(el.open, 'opened').toBeTruthy();
  });
});

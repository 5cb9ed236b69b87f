// <panel-explainer>: a closed-by-default disclosure whose summary opens the explanation.
import '../../src/ui/common/panel-explainer.ts';
import type { PanelExplainer } from '../../src/ui/common/panel-explainer.ts';
import { check, inside, mount } from './ui-fixture.ts';

describe('<panel-explainer>', () => {
  it('opens on its summary and shows the slotted text', async () => {
    const el = await mount<PanelExplainer>('panel-explainer', {});
    el.innerHTML = '<p>the formula</p>';
    const details = inside<HTMLDetailsElement>(el, 'details');
    check(!details.open && inside(el, 'summary').textContent === 'What am I looking at?', 'closed, with the question');
    inside<HTMLElement>(el, 'summary').click();
    await new Promise((resolve) => setTimeout(resolve, 0));
    check(details.open && el.open, 'opened');
  });
});

// <notice-banner> and the failure notices: every failure kind gets plain words and a way forward.
import '../../src/ui/common/notice-banner.ts';
import type { NoticeBanner } from '../../src/ui/common/notice-banner.ts';
import { noticeFor } from '../../src/ui/common/failure-notice.ts';
import { PageFailure, toPageFailure } from '../../src/worker/client.ts';
import { events, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

describe('<notice-banner>', () => {
  it('announces errors and reports the chosen action', async () => {
    const notice = noticeFor(new PageFailure('download', 'HTTP 404'), 'org/model');
    const el = await mount<NoticeBanner>('notice-banner', notice);
    expect(inside(el, '.box').getAttribute('role'), 'errors use role=alert').toBe('alert');
    expect(inside(el, 'h2').textContent ?? '', 'heading names the model').toMatch(/Could not download org\/model/);
    const seen = events<{ action: string }>(el, 'notice-action');
    inside<HTMLButtonElement>(el, 'button[data-action="retry"]').click();
    expect(seen[0]?.action, 'retry reported').toBe('retry');
  });

  it('offers a reload after a lost device and the demo after a too-large model', () => {
    expect(
      noticeFor(new PageFailure('device-lost', 'lost'), 'm').actions.some((a) => a.id === 'reload-model'),
      'reload offered',
    ).toBe(true);
    expect(
      noticeFor(new PageFailure('too-large', 'big'), 'm').actions.some((a) => a.id === 'load-demo'),
      'demo offered',
    ).toBe(true);
    const noGpu = noticeFor(new PageFailure('no-webgpu', 'none'), 'm');
    expect(noGpu.message, 'no-WebGPU notice mentions the precomputed figures').toContain('precomputed');
    expect(noGpu.message, noGpu.message).toMatch(/What still works without it: the Lesson plays a recording/);
    expect(
      noGpu.actions.map((a) => `${a.id}: ${a.label}`).join(),
      'no-WebGPU notice offers the recorded lesson in one click',
    ).toBe('open-lesson: Play the recorded lesson');
  });

  it('says a cancelled load was cancelled and which model is still loaded', () => {
    const kept = noticeFor(new PageFailure('cancelled', 'Cancelled by the user'), 'org/big', 'The demo backbone');
    expect(kept.heading, kept.heading).toMatch(/Loading org\/big was cancelled/);
    expect(kept.message, kept.message).toContain('The demo backbone is still loaded');
    expect(
      kept.actions.some((a) => a.id === 'retry'),
      'the download can be started again',
    ).toBe(true);
    expect(noticeFor(new PageFailure('cancelled', 'x'), 'org/big').message, 'nothing loaded before: says so').toMatch(
      /No model is loaded/,
    );
  });

  it('maps worker error names to failure kinds', () => {
    const named = (name: string) => Object.assign(new Error('x'), { name });
    expect(toPageFailure(named('HubError')).kind, 'HubError').toBe('download');
    expect(toPageFailure(named('NoWebGpuError')).kind, 'NoWebGpuError').toBe('no-webgpu');
    expect(toPageFailure(named('GpuLimitError')).kind, 'GpuLimitError').toBe('too-large');
    expect(toPageFailure(named('AbortError')).kind, 'AbortError').toBe('cancelled');
    expect(toPageFailure(named('TypeError')).kind, 'anything else').toBe('other');
  });
});

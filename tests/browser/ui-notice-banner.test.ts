// <notice-banner> and the failure notices: every failure kind gets plain words and a way forward.
import '../../src/ui/common/notice-banner.ts';
import type { NoticeBanner } from '../../src/ui/common/notice-banner.ts';
import { noticeFor } from '../../src/ui/common/failure-notice.ts';
import { PageFailure, toPageFailure } from '../../src/worker/client.ts';
import { check, events, inside, mount } from './ui-fixture.ts';

describe('<notice-banner>', () => {
  it('announces errors and reports the chosen action', async () => {
    const notice = noticeFor(new PageFailure('download', 'HTTP 404'), 'org/model');
    const el = await mount<NoticeBanner>('notice-banner', notice);
    check(inside(el, '.box').getAttribute('role') === 'alert', 'errors use role=alert');
    check(/Could not download org\/model/.test(inside(el, 'h2').textContent ?? ''), 'heading names the model');
    const seen = events<{ action: string }>(el, 'notice-action');
    inside<HTMLButtonElement>(el, 'button[data-action="retry"]').click();
    check(seen[0]?.action === 'retry', 'retry reported');
  });

  it('offers a reload after a lost device and the demo after a too-large model', () => {
    check(
      noticeFor(new PageFailure('device-lost', 'lost'), 'm').actions.some((a) => a.id === 'reload-model'),
      'reload offered',
    );
    check(
      noticeFor(new PageFailure('too-large', 'big'), 'm').actions.some((a) => a.id === 'load-demo'),
      'demo offered',
    );
    const noGpu = noticeFor(new PageFailure('no-webgpu', 'none'), 'm');
    check(noGpu.message.includes('precomputed'), 'no-WebGPU notice mentions the precomputed figures');
    check(/What still works without it: the Lesson plays a recording/.test(noGpu.message), noGpu.message);
    check(
      noGpu.actions.map((a) => `${a.id}: ${a.label}`).join() === 'open-lesson: Play the recorded lesson',
      'no-WebGPU notice offers the recorded lesson in one click',
    );
  });

  it('says a cancelled load was cancelled and which model is still loaded', () => {
    const kept = noticeFor(new PageFailure('cancelled', 'Cancelled by the user'), 'org/big', 'The demo backbone');
    check(/Loading org\/big was cancelled/.test(kept.heading), kept.heading);
    check(kept.message.includes('The demo backbone is still loaded'), kept.message);
    check(
      kept.actions.some((a) => a.id === 'retry'),
      'the download can be started again',
    );
    check(
      /No model is loaded/.test(noticeFor(new PageFailure('cancelled', 'x'), 'org/big').message),
      'nothing loaded before: says so',
    );
  });

  it('maps worker error names to failure kinds', () => {
    const named = (name: string) => Object.assign(new Error('x'), { name });
    check(toPageFailure(named('HubError')).kind === 'download', 'HubError');
    check(toPageFailure(named('NoWebGpuError')).kind === 'no-webgpu', 'NoWebGpuError');
    check(toPageFailure(named('GpuLimitError')).kind === 'too-large', 'GpuLimitError');
    check(toPageFailure(named('AbortError')).kind === 'cancelled', 'AbortError');
    check(toPageFailure(named('TypeError')).kind === 'other', 'anything else');
  });
});

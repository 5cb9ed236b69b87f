// The URL state: every field survives a round trip, defaults stay out of links, malformed values fall back.
import { DEFAULT_STATE, linkCorrections, readState, writeState, type PageState } from '../../src/ui/url-state.ts';
import { check } from './ui-fixture.ts';

describe('url state', () => {
  it('round-trips model, k, target, texts, panel, log scale, Hub URL, the demo settings and the lesson', () => {
    const state: PageState = {
      model: 'answerdotai/ModernBERT-base',
      k: 8,
      target: 1.28,
      query: 'what is a "tide" & why?',
      doc: 'Tides: rise/fall of the sea.',
      panel: 'preview',
      logNorm: true,
      hub: 'http://127.0.0.1:9000/hub',
      demoKs: [1, 4, 16],
      demoSteps: 25,
      lesson: { step: 3, ks: [1, 4, 16], seed: 7, steps: 12, speed: 'fast', mode: 'recorded', present: true },
    };
    check(JSON.stringify(readState(writeState(state))) === JSON.stringify(state), writeState(state));
  });

  it('keeps links short and falls back on malformed values', () => {
    check(writeState(DEFAULT_STATE) === '?model=demo&k=1', writeState(DEFAULT_STATE));
    const state = readState('?k=-3&target=abc&panel=nope&model=&dks=1,0&dsteps=0');
    check(state.k === 1 && state.target === 1.4 && state.panel === 'norms' && state.model === 'demo', JSON.stringify(state));
    check(state.demoKs.join(',') === '1,16' && state.demoSteps === 60, `demo settings fall back: ${JSON.stringify(state)}`);
    check(readState('?panel=training&dks=2 8').demoKs.join(',') === '2,8', 'k values may be separated by spaces');
    const lesson = readState('?panel=lesson&lstep=9&lks=4,4&lseed=1.5&lsteps=0&lspeed=warp&lmode=other&present=yes').lesson;
    check(
      JSON.stringify(lesson) === JSON.stringify(DEFAULT_STATE.lesson),
      `lesson settings fall back: ${JSON.stringify(lesson)}`,
    );
    for (const steps of ['401', '2.5', 'many'])
      check(readState(`?lsteps=${steps}`).lesson.steps === DEFAULT_STATE.lesson.steps, `lsteps=${steps} falls back`);
    check(
      readState('?lsteps=4').lesson.steps === 4 && writeState(readState('?lsteps=4')).includes('lsteps=4'),
      'a shorter lesson by link',
    );
    check(
      readState('?lstep=2&lks=1 8').lesson.step === 2 && readState('?lks=1,2,4,8').lesson.ks.join(',') === '1,8',
      'a lesson takes 2 or 3 ks',
    );
  });

  it('opens the presenter view from a bare ?present, and says which link values it did not use and what it uses instead', () => {
    check(readState('?present').lesson.present && readState('?present=1').lesson.present, 'present and present=1');
    check(!readState('?present=0').lesson.present, 'present=0 is off');
    const corrections = (search: string) => linkCorrections(search).join(' | ');
    check(corrections('?model=demo&k=4&lsteps=12&present&panel=lesson&lsteps=12') === '', corrections('?present'));
    check(
      corrections('?lsteps=40&target=1.40&lks=1 8&panel=norms') === '',
      `defaults named in a link: ${corrections('?lsteps=40&target=1.40')}`,
    );
    check(
      corrections('?lsteps=0') ===
        "lsteps=0 was not used (a lesson's training steps must be a whole number from 1 to 400): the page uses its default.",
      corrections('?lsteps=0'),
    );
    check(
      /^lsteps=99999 was not used .*: the page uses its default\.$/.test(corrections('?lsteps=99999')),
      corrections('?lsteps=99999'),
    );
    check(
      /^k=-1 was not used \(k must be a number from 0\.25 to 64\): the page uses k=1\.$/.test(corrections('?k=-1')),
      corrections('?k=-1'),
    );
    check(
      /^panel=nope was not used \(the panel must be one of norms, preview, audit, training, evaluate, runs, lesson\): the page uses its default\.$/.test(
        corrections('?present&panel=nope'),
      ),
      corrections('?present&panel=nope'),
    );
  });

  it('a bad k or panel alone (no presenter view): said, the default used, and the URL the page writes holds the default', () => {
    for (const [search, said, written] of [
      ['?model=demo&k=-1', /^k=-1 was not used \(k must be .*\): the page uses k=1\.$/, '?model=demo&k=1'],
      [
        '?model=demo&k=1&panel=nope',
        /^panel=nope was not used \(the panel must be one of .*\): the page uses its default\.$/,
        '?model=demo&k=1',
      ],
    ] as const) {
      const corrections = linkCorrections(search);
      check(corrections.length === 1 && said.test(corrections[0]), `${search}: ${corrections.join(' | ')}`);
      check(writeState(readState(search)) === written, `${search} is written back as ${writeState(readState(search))}`);
    }
  });
});

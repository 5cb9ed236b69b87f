// The URL state: every field survives a round trip, defaults stay out of links, malformed values fall back.
import { DEFAULT_STATE, linkCorrections, readState, writeState, type PageState } from '../../src/ui/url-state.ts';
import { expect } from './expect.ts';

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
    expect(JSON.stringify(readState(writeState(state))), writeState(state)).toBe(JSON.stringify(state));
  });

  it('keeps links short and falls back on malformed values', () => {
    expect(writeState(DEFAULT_STATE), writeState(DEFAULT_STATE)).toBe('?model=demo&k=1');
    const state = readState('?k=-3&target=abc&panel=nope&model=&dks=1,0&dsteps=0');
    expect(state.k, JSON.stringify(state)).toBe(1);
    expect(state.target, JSON.stringify(state)).toBe(1.4);
    expect(state.panel, JSON.stringify(state)).toBe('norms');
    expect(state.model, JSON.stringify(state)).toBe('demo');
    expect(state.demoKs.join(','), `demo settings fall back: ${JSON.stringify(state)}`).toBe('1,16');
    expect(state.demoSteps, `demo settings fall back: ${JSON.stringify(state)}`).toBe(60);
    expect(readState('?panel=training&dks=2 8').demoKs.join(','), 'k values may be separated by spaces').toBe('2,8');
    const lesson = readState('?panel=lesson&lstep=9&lks=4,4&lseed=1.5&lsteps=0&lspeed=warp&lmode=other&present=yes').lesson;
    expect(JSON.stringify(lesson), `lesson settings fall back: ${JSON.stringify(lesson)}`).toBe(
      JSON.stringify(DEFAULT_STATE.lesson),
    );
    for (const steps of ['401', '2.5', 'many'])
      expect(readState(`?lsteps=${steps}`).lesson.steps, `lsteps=${steps} falls back`).toBe(DEFAULT_STATE.lesson.steps);
    expect(readState('?lsteps=4').lesson.steps, 'a shorter lesson by link').toBe(4);
    expect(writeState(readState('?lsteps=4')), 'a shorter lesson by link').toContain('lsteps=4');
    expect(readState('?lstep=2&lks=1 8').lesson.step, 'a lesson takes 2 or 3 ks').toBe(2);
    expect(readState('?lks=1,2,4,8').lesson.ks.join(','), 'a lesson takes 2 or 3 ks').toBe('1,8');
  });

  it('opens the presenter view from a bare ?present, and says which link values it did not use and what it uses instead', () => {
    expect(readState('?present').lesson.present, 'present and present=1').toBeTruthy();
    expect(readState('?present=1').lesson.present, 'present and present=1').toBeTruthy();
    expect(readState('?present=0').lesson.present, 'present=0 is off').toBeFalsy();
    const corrections = (search: string) => linkCorrections(search).join(' | ');
    expect(corrections('?model=demo&k=4&lsteps=12&present&panel=lesson&lsteps=12'), corrections('?present')).toBe('');
    expect(
      corrections('?lsteps=40&target=1.40&lks=1 8&panel=norms'),
      `defaults named in a link: ${corrections('?lsteps=40&target=1.40')}`,
    ).toBe('');
    expect(corrections('?lsteps=0'), corrections('?lsteps=0')).toBe(
      "lsteps=0 was not used (a lesson's training steps must be a whole number from 1 to 400): the page uses its default.",
    );
    expect(corrections('?lsteps=99999'), corrections('?lsteps=99999')).toMatch(
      /^lsteps=99999 was not used .*: the page uses its default\.$/,
    );
    expect(corrections('?k=-1'), corrections('?k=-1')).toMatch(
      /^k=-1 was not used \(k must be a number from 0\.25 to 64\): the page uses k=1\.$/,
    );
    expect(corrections('?present&panel=nope'), corrections('?present&panel=nope')).toMatch(
      /^panel=nope was not used \(the panel must be one of norms, preview, audit, training, evaluate, runs, lesson\): the page uses its default\.$/,
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
      expect(corrections, `${search}: ${corrections.join(' | ')}`).toHaveLength(1);
      expect(corrections[0], `${search}: ${corrections.join(' | ')}`).toMatch(said);
      expect(writeState(readState(search)), `${search} is written back as ${writeState(readState(search))}`).toBe(written);
    }
  });
});

// <lesson-panel> and its parts: the recorded lesson is marked as recorded and plays frame by frame (one step, play to
// the end) into the charts, the watched vectors and the summary; the sentence steps show one vector (sparse or dense,
// said from its numbers), then every k with its figures, what dividing did and saturation marks; special pieces are
// listed apart; the comparing sentences follow the frames; the keyboard shortcuts ask for the URL changes, and PageDown
// / PageUp / Space scroll through a step before moving on (Space never back); the presenter view's layout; a
// recording refuses other settings; slow live steps offer the recording once, with the mean step time.
import '../../src/ui/lesson/lesson-panel.ts';
import type { LessonPanel } from '../../src/ui/lesson/lesson-panel.ts';
import type { LessonSummary } from '../../src/ui/lesson/lesson-summary.ts';
import type { LessonTraining } from '../../src/ui/lesson/lesson-training.ts';
import type { LossChart } from '../../src/ui/common/loss-chart.ts';
import { DEFAULT_STATE, type LessonState } from '../../src/ui/url-state.ts';
import type { LessonFrame, LessonTrace, LessonVector, WorkerClient } from '../../src/worker/api.ts';
import { cleanup, events, inside, mount, settle } from './ui-fixture.ts';
import { expect } from './expect.ts';

const KS = [1, 8];
const STEPS = 4;

function vector(k: number, text: string, weights: number[], figures: Partial<LessonVector> = {}): LessonVector {
  const terms = weights.map((weight, i) => ({ term: `w${i}`, id: i, weight, expansion: i % 2 === 1 }));
  const logits = weights.map(Math.expm1).sort((a, b) => a - b);
  return {
    k,
    text,
    tokens: text.split(' '),
    activeDims: weights.length,
    vocabSize: 30522,
    special: [],
    specialDims: 0,
    ...figures,
    terms,
    flops: weights.reduce((s, w) => s + w * w, 0),
    weightSum: weights.reduce((s, w) => s + w, 0),
    maxWeight: Math.max(...weights),
    maxLogit: Math.expm1(Math.max(...weights)),
    medianLogit: logits[logits.length >> 1],
  };
}

/** A recorded lesson whose k = 8 learns (nDCG up, loss down) and whose k = 1 stays dense and stuck. */
function fakeTrace(
  sentence: LessonVector[] = [vector(1, 'a whale swims', [9, 8, 7.5]), vector(8, 'a whale swims', [2.5, 1])],
): LessonTrace {
  const frames: LessonFrame[] = Array.from({ length: STEPS + 1 }, (_, step) => ({
    step,
    runs: KS.map((k) => ({
      k,
      losses:
        step === 0
          ? null
          : { rank: (k === 1 ? 300 : 20) / step, flopsQueries: k === 1 ? 40000 : 2000, flopsDocuments: 10, total: 1 },
      active: step === 0 ? null : { queries: k === 1 ? 28000 : 20000 - 1000 * step, documents: 25000 },
      probe: vector(
        k,
        'whale coral',
        k === 1 ? [9, 8.5, 8] : [3 + step * 0.1, 2],
        k === 8 ? { special: [{ term: '[CLS]', id: 101, weight: 0.458, expansion: true }], specialDims: 3 } : {},
      ),
      heldOut:
        step % 2 === 0 || step === STEPS
          ? {
              ndcg10: k === 1 ? 0.5 : 0.5 + 0.02 * step,
              recall10: 0.3,
              queryActiveDims: k === 1 ? 25000 : 2000,
              documentActiveDims: 200,
              flops: k === 1 ? 28000 : 20000,
            }
          : null,
    })),
  }));
  return {
    format: 'splade-lab lesson trace',
    version: 1,
    model: 'the demo backbone',
    adapter: 'a test adapter',
    facts: {
      settings: { ks: KS, seed: 1, steps: STEPS, measureEvery: 2 },
      probe: 'whale coral',
      queries: 32,
      documents: 192,
      triplets: 512,
      recipe: {
        batchSize: 8,
        queryLength: 6,
        documentLength: 12,
        peakLr: 1e-3,
        lambdaQueries: 5e-3,
        lambdaDocuments: 3e-4,
        topTerms: 10,
        documentsPerTopic: 12,
      },
    },
    sentence,
    frames,
  };
}

function lessonState(patch: Partial<LessonState> = {}): LessonState {
  return { ...DEFAULT_STATE.lesson, steps: STEPS, mode: 'recorded', speed: 'fast', ...patch };
}

async function recorded(patch: Partial<LessonState> = {}, trace = fakeTrace()): Promise<LessonPanel> {
  cleanup();
  window.scrollTo(0, 0);
  const el = await mount<LessonPanel>('lesson-panel', {
    trace,
    state: lessonState(patch),
    noGpu: true,
    active: true,
  });
  await settle(el);
  return el;
}

describe('<lesson-panel>', () => {
  it('marks a recording as recorded and shows the sentence vector of the divided head, the input locked', async () => {
    const el = await recorded();
    const mode = inside(el, '#lesson-mode');
    expect(mode.dataset.mode, mode.textContent ?? '').toBe('recorded');
    expect(mode.textContent ?? '', mode.textContent ?? '').toMatch(/Recorded: played back .*demo backbone on a test adapter/);
    expect(inside<HTMLButtonElement>(el, '#switch-mode').disabled, 'no live lesson without WebGPU').toBeTruthy();
    expect(inside<HTMLInputElement>(el, '#sentence').disabled, 'a recording holds one sentence').toBeTruthy();
    const vectors = inside(el, 'lesson-vectors') as HTMLElement & { shadowRoot: ShadowRoot };
    const terms = vectors.shadowRoot.querySelector('#vector');
    expect(terms?.getAttribute('heading'), terms?.getAttribute('heading') ?? 'no vector').toBe(
      'Its vector at k = 8 (2 of 30522 dimensions active)',
    );
    const claim = vectors.shadowRoot.querySelector('#sparsity-claim');
    expect(claim?.getAttribute('data-sparse'), claim?.textContent ?? 'no claim').toBe('true');
    expect(claim!.textContent ?? '', claim?.textContent ?? 'no claim').toMatch(
      /2 of its 30,522 dimensions are active .*the vector is sparse/,
    );
  });

  it('says plainly that a dense vector is dense, and why, from its own numbers', async () => {
    const dense = vector(8, 'a whale swims', [2.5, 1], { activeDims: 29717 });
    const el = await recorded({}, fakeTrace([vector(1, 'a whale swims', [9, 8, 7.5]), dense]));
    const vectors = inside(el, 'lesson-vectors') as HTMLElement & { shadowRoot: ShadowRoot };
    const claim = vectors.shadowRoot.querySelector('#sparsity-claim')?.textContent ?? '';
    expect(claim, claim).toMatch(
      /29,717 of its 30,522 dimensions are active \(97\.4%\): this demo's raw vector is dense, not sparse/,
    );
    expect(claim, claim).toMatch(/log\(1 \+ ReLU\) keeps every positive logit/);
    expect(el.shadowRoot!.textContent ?? '', claim).not.toMatch(/most entries are zero/);
  });

  it('compares the sentence under every k: figures per k and one marker shape per k on the saturation curve', async () => {
    const el = await recorded({ step: 2 });
    const vectors = inside(el, 'lesson-vectors') as HTMLElement & { shadowRoot: ShadowRoot };
    const cell = (figure: string, k: number) =>
      vectors.shadowRoot.querySelector(`tr[data-figure="${figure}"] td[data-k="${k}"]`)?.textContent;
    expect(cell('activeDims', 1), `active dims ${cell('activeDims', 1)} ${cell('activeDims', 8)}`).toBe('3');
    expect(cell('activeDims', 8), `active dims ${cell('activeDims', 1)} ${cell('activeDims', 8)}`).toBe('2');
    expect(Number(cell('maxLogit', 1)), 'k = 1 has the larger logit').toBeGreaterThan(Number(cell('maxLogit', 8)));
    const curve = vectors.shadowRoot.querySelector('lesson-saturation')!.shadowRoot!;
    const marks = [...curve.querySelectorAll('path.mark')].map(
      (m) => `${m.getAttribute('data-k')}:${m.getAttribute('data-kind')}:${m.getAttribute('d')?.[0]}`,
    );
    expect(marks, marks.join(' ')).toHaveLength(4);
    const shapes = new Set(
      [...curve.querySelectorAll('path.mark[data-kind="maxLogit"]')].map((m) => m.getAttribute('d')!.replace(/[\d.\s-]/g, '')),
    );
    expect(shapes.size, `a different marker shape per k: ${[...shapes].join(' | ')}`).toBe(2);
    const division = vectors.shadowRoot.querySelector('#division-claims li[data-k="8"]');
    expect(division?.getAttribute('data-fewer'), division?.textContent ?? 'no division claim').toBe('true');
    expect(division!.textContent ?? '', division?.textContent ?? 'no division claim').toMatch(
      /keeps fewer active dimensions \(3 → 2\)/,
    );
  });

  it('steps and plays the recorded training into the charts and the watched vectors, then sums it up', async () => {
    const el = await recorded({ step: 3 });
    expect(inside(el, '#lesson-status').textContent ?? '', inside(el, '#lesson-status').textContent ?? '').toMatch(
      /Step 0 of 4|Press Play/,
    );
    inside<HTMLButtonElement>(el, '#step-once').click();
    await settle(el);
    expect(inside(el, '#lesson-status').textContent ?? '', inside(el, '#lesson-status').textContent ?? '').toMatch(/Step 1 of 4/);
    const training = inside<LessonTraining>(el, 'lesson-training');
    const probe = training.shadowRoot!.querySelector('sparse-terms[data-k="8"]');
    expect(probe?.getAttribute('heading'), probe?.getAttribute('heading') ?? 'no probe').toBe('k = 8 after 1 steps');
    const apart = training.shadowRoot!.querySelector('.special-apart[data-k="8"]')?.textContent?.replace(/\s+/g, ' ') ?? '';
    expect(apart, apart).toMatch(/Apart, not top terms \(special and \[unused\]\): \[CLS\] 0\.458 and 2 more\./);
    expect(
      (probe as HTMLElement).shadowRoot!.querySelector('li[data-term="[CLS]"]'),
      '[CLS] is not among the top terms',
    ).toBeFalsy();
    const claim = () => training.shadowRoot!.querySelector('#training-claim')!;
    expect(claim().textContent ?? '', claim().textContent ?? '').toMatch(
      /After step 1, k = 8's training queries keep 19,000 active dimensions against 28,000 for k = 1/,
    );
    expect(claim().textContent ?? '', claim().textContent ?? '').toMatch(
      /before training, the ks are level \(nDCG@10 0\.500 for k = 1 and 0\.500 for k = 8\)/,
    );
    inside<HTMLButtonElement>(el, '#play').click();
    await settle(el, 20);
    expect(inside(el, '#lesson-status').textContent ?? '', inside(el, '#lesson-status').textContent ?? '').toMatch(
      /Done: 4 steps/,
    );
    const rank = training.shadowRoot!.querySelector<LossChart>('#rank-chart')!;
    expect(rank.series.map((s) => s.points.length).join(), `rank points ${rank.series.map((s) => s.points.length)}`).toBe('4,4');
    const ndcg = training.shadowRoot!.querySelector<LossChart>('#ndcg-chart')!;
    expect(ndcg.series[1].points.map((p) => p.x).join(), 'nDCG at the measured steps, linear').toBe('0,2,4');
    expect(ndcg.log, 'nDCG at the measured steps, linear').toBeFalsy();

    el.state = lessonState({ step: 4 });
    await settle(el);
    const summary = inside<LessonSummary>(el, '#summary-screen');
    const takeaway = summary.shadowRoot!.querySelector('#takeaway')?.textContent ?? '';
    expect(takeaway, takeaway).toMatch(
      /After 4 steps, k = 8 is ahead on both counts: it ranks the held-out queries best \(nDCG@10 0\.580 against 0\.500 for k = 1\), and it costs the least to search \(retrieval FLOPS 20,000 against 28,000 for k = 1, the terms a query and a document are expected to share; 2,000 active dimensions per query against 25,000 for k = 1\)/,
    );
    expect(summary.shadowRoot!.querySelector('#takeaway')?.getAttribute('data-ndcg-leader'), 'k = 8 leads').toBe('8');
    const losses = summary.shadowRoot!.querySelector('#takeaway-losses')?.textContent ?? '';
    expect(losses, losses).toMatch(/ended at 75 for k = 1 and 5 for k = 8\. Here k = 8 both fits the training batches best/);
    const start = summary.shadowRoot!.querySelector('#takeaway-start')?.textContent ?? '';
    expect(start, start).toMatch(/k = 1's ranking loss was 300, 15 times that of k = 8/);
    expect(summary.shadowRoot!.querySelector('tr[data-k="8"] td[data-measure="ndcg-before"]')?.textContent, 'before').toBe(
      '0.500',
    );
    const printed = inside<LessonSummary>(el, '#summary-print');
    expect(printed.shadowRoot!.querySelector('#takeaway')?.textContent, 'the printable summary says the same').toBe(takeaway);
    expect(getComputedStyle(inside(el, '#print-summary')).display, 'the printable summary shows only in print').toBe('none');
  });

  it('answers the keyboard with URL changes, and not while the user types', async () => {
    const el = await recorded({ step: 2 });
    const changes = events<Partial<LessonState>>(el, 'lesson-change');
    for (const key of ['n', 'p', '4', '+', '-', 'f']) window.dispatchEvent(new KeyboardEvent('keydown', { key }));
    expect(JSON.stringify(changes), JSON.stringify(changes)).toBe(
      JSON.stringify([{ step: 3 }, { step: 1 }, { step: 4 }, { speed: 'fast' }, { speed: 'normal' }, { present: true }]),
    );
    const input = inside<HTMLInputElement>(el, '#sentence');
    input.disabled = false;
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'n', bubbles: true, composed: true }));
    expect(changes, 'typing n in the sentence is not a shortcut').toHaveLength(6);
    el.active = false;
    await el.updateComplete;
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'n' }));
    expect(changes, 'a hidden lesson ignores the keyboard').toHaveLength(6);
  });

  it('PageDown, → and Space scroll through a step first and move on at its end; PageUp and ← go back the same way; Space never goes back', async () => {
    const el = await recorded({ step: 2 });
    const section = inside(el, 'section[data-step]');
    section.style.minHeight = `${3 * window.innerHeight}px`;
    const changes = events<Partial<LessonState>>(el, 'lesson-change');
    const press = (key: string) => window.dispatchEvent(new KeyboardEvent('keydown', { key }));
    const scrolls: number[] = [];
    for (const key of ['PageDown', 'ArrowRight', ' ', 'PageDown', 'PageDown', 'PageDown']) {
      if (changes.length) break;
      press(key);
      scrolls.push(Math.round(window.scrollY));
    }
    expect(scrolls[0], `scrolled down first: ${scrolls}`).toBeGreaterThan(0);
    expect(
      scrolls.every((y, i) => i === 0 || y >= scrolls[i - 1]),
      `scrolled down first: ${scrolls}`,
    ).toBe(true);
    expect(section.getBoundingClientRect().bottom, 'the step is shown to its end before moving on').toBeLessThanOrEqual(
      window.innerHeight + 8,
    );
    expect(JSON.stringify(changes), `then the next step: ${JSON.stringify(changes)}`).toBe('[{"step":3}]');
    const bottom = window.scrollY;
    press('PageUp');
    expect(window.scrollY, 'PageUp scrolls up through the step first').toBeLessThan(bottom);
    expect(changes, 'PageUp scrolls up through the step first').toHaveLength(1);
    for (let i = 0; i < 6 && changes.length === 1; i++) press('ArrowLeft');
    expect(JSON.stringify(changes[1]), JSON.stringify(changes)).toBe('{"step":1}');
    expect(section.getBoundingClientRect().top, JSON.stringify(changes)).toBeGreaterThanOrEqual(-8);

    const last = await recorded({ step: 4 });
    const lastChanges = events<Partial<LessonState>>(last, 'lesson-change');
    for (let i = 0; i < 8; i++) press(' ');
    expect(lastChanges, `Space on the last step never goes back: ${JSON.stringify(lastChanges)}`).toHaveLength(0);
    const training = await recorded({ step: 3 });
    const trainingChanges = events<Partial<LessonState>>(training, 'lesson-change');
    press(' ');
    await settle(training, 20);
    expect(trainingChanges, 'Space plays step 3').toHaveLength(0);
    expect(inside(training, '#lesson-status').textContent ?? '', 'Space plays step 3').toMatch(/Done: 4 steps/);
    window.scrollTo(0, 0);
  });

  it('presenter view: body text of 20 px or more, the settings hidden, the controls stuck to the top, the charts first', async () => {
    const el = await recorded({ step: 3, present: true });
    expect(el.hasAttribute('presenter'), 'presenter attribute').toBe(true);
    inside<HTMLButtonElement>(el, '#play').click();
    await settle(el, 20);
    const small = [...el.shadowRoot!.querySelectorAll('.narration p, #lesson-status')].filter(
      (p) => parseFloat(getComputedStyle(p).fontSize) < 20,
    );
    expect(small, `text under 20 px: ${small.map((p) => p.textContent).join(' | ')}`).toHaveLength(0);
    expect(getComputedStyle(inside(el, '#lesson-settings')).display, 'the settings are hidden').toBe('none');
    expect(getComputedStyle(inside(el, '#training-controls')).position, 'the controls stick to the top').toBe('sticky');
    const training = inside<LessonTraining>(el, 'lesson-training');
    const order = [...training.shadowRoot!.children].map((c) => c.className || c.id || c.localName);
    expect(order.indexOf('charts'), `charts before the watched query: ${order}`).toBeLessThan(order.indexOf('probes'));
    const claim = parseFloat(getComputedStyle(training.shadowRoot!.querySelector('#training-claim')!).fontSize);
    expect(claim, `the training sentence at ${claim} px`).toBeGreaterThanOrEqual(20);
    expect(inside(el, '#presenter').textContent ?? '', 'the button says how to leave').toMatch(/Leave presenter view/);
  });

  it('takes new ks, a seed and steps from its fields, and refuses what it cannot show', async () => {
    const el = await recorded({ step: 3 });
    const changes = events<Partial<LessonState>>(el, 'lesson-change');
    const ks = inside<HTMLInputElement>(el, '#lesson-ks');
    ks.value = '1, 16';
    ks.dispatchEvent(new Event('change', { bubbles: true }));
    expect(JSON.stringify(changes), JSON.stringify(changes)).toBe('[{"ks":[1,16],"seed":1,"steps":4}]');
    ks.value = '4, 4';
    ks.dispatchEvent(new Event('change', { bubbles: true }));
    expect(changes, 'the same k twice is refused').toHaveLength(1);
    expect(ks.checkValidity(), 'the same k twice is refused').toBeFalsy();
    ks.value = '1, 8';
    const steps = inside<HTMLInputElement>(el, '#lesson-steps');
    steps.value = '12';
    steps.dispatchEvent(new Event('change', { bubbles: true }));
    expect(JSON.stringify(changes[1]), JSON.stringify(changes)).toBe('{"ks":[1,8],"seed":1,"steps":12}');
    steps.value = '0';
    steps.dispatchEvent(new Event('change', { bubbles: true }));
    expect(changes, '0 steps are refused').toHaveLength(2);
    expect(steps.checkValidity(), '0 steps are refused').toBeFalsy();
  });

  it('a recording refuses settings it does not hold, and says how to get them', async () => {
    const el = await recorded({ step: 3, ks: [1, 4] });
    inside<HTMLButtonElement>(el, '#step-once').click();
    await settle(el);
    expect(inside(el, '#lesson-error').textContent ?? '', inside(el, '#lesson-error').textContent ?? '').toMatch(
      /The recording has k = 1 and 8 with seed 1 over 4 steps; other settings need the live lesson/,
    );
    const longer = await recorded({ step: 3, steps: 40 });
    inside<HTMLButtonElement>(longer, '#step-once').click();
    await settle(longer);
    expect(inside(longer, '#lesson-error').textContent ?? '', 'a recording of 4 steps refuses a lesson of 40').toMatch(
      /over 4 steps; other settings need the live lesson/,
    );
  });

  it('live: trains through the worker and offers the recording when a step is slow', async () => {
    cleanup();
    const trace = fakeTrace();
    let next = 1;
    const client = {
      lessonStart: async () => ({ facts: trace.facts, frame: trace.frames[0] }),
      lessonStep: async () => trace.frames[next++],
      lessonSentence: async () => trace.sentence,
      lessonStop: async () => undefined,
    } as unknown as WorkerClient;
    const summary = { name: 'demo', vocabSize: 30522 } as LessonPanel['summary'];
    const el = await mount<LessonPanel>('lesson-panel', {
      client,
      summary,
      state: lessonState({ step: 3, mode: null }),
      active: true,
      slowStepMs: 0,
    });
    await settle(el);
    expect(inside(el, '#lesson-mode').dataset.mode, 'live with WebGPU').toBe('live');
    inside<HTMLButtonElement>(el, '#step-once').click();
    await settle(el);
    const notice = () => el.shadowRoot!.querySelector('#slow-notice')?.textContent?.replace(/\s+/g, ' ') ?? '';
    expect(notice(), notice()).toMatch(/This GPU takes [\d.]+ s a step on average: the 3 steps left would take about/);
    // once told, the notice stays while faster steps bring the mean down: it never comes and goes under the charts
    el.slowStepMs = 1e9;
    inside<HTMLButtonElement>(el, '#step-once').click();
    await settle(el);
    expect(notice(), `the notice stays, its estimate from the mean: ${notice()}`).toMatch(/the 2 steps left/);
    expect(inside(el, '#lesson-status').textContent ?? '', 'status: mean and time left').toMatch(
      /s per step on average, about .* left/,
    );
    const changes = events<Partial<LessonState>>(el, 'lesson-change');
    inside<HTMLButtonElement>(el, '#use-recording').click();
    expect(JSON.stringify(changes), JSON.stringify(changes)).toBe('[{"mode":"recorded"}]');
  });
});

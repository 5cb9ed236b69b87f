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
import { check, cleanup, events, inside, mount, settle } from './ui-fixture.ts';

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
    check(
      mode.dataset.mode === 'recorded' && /Recorded: played back .*demo backbone on a test adapter/.test(mode.textContent ?? ''),
      mode.textContent ?? '',
    );
    check(inside<HTMLButtonElement>(el, '#switch-mode').disabled, 'no live lesson without WebGPU');
    check(inside<HTMLInputElement>(el, '#sentence').disabled, 'a recording holds one sentence');
    const vectors = inside(el, 'lesson-vectors') as HTMLElement & { shadowRoot: ShadowRoot };
    const terms = vectors.shadowRoot.querySelector('#vector');
    check(
      terms?.getAttribute('heading') === 'Its vector at k = 8 (2 of 30522 dimensions active)',
      terms?.getAttribute('heading') ?? 'no vector',
    );
    const claim = vectors.shadowRoot.querySelector('#sparsity-claim');
    check(
      claim?.getAttribute('data-sparse') === 'true' &&
        /2 of its 30,522 dimensions are active .*the vector is sparse/.test(claim.textContent ?? ''),
      claim?.textContent ?? 'no claim',
    );
  });

  it('says plainly that a dense vector is dense, and why, from its own numbers', async () => {
    const dense = vector(8, 'a whale swims', [2.5, 1], { activeDims: 29717 });
    const el = await recorded({}, fakeTrace([vector(1, 'a whale swims', [9, 8, 7.5]), dense]));
    const vectors = inside(el, 'lesson-vectors') as HTMLElement & { shadowRoot: ShadowRoot };
    const claim = vectors.shadowRoot.querySelector('#sparsity-claim')?.textContent ?? '';
    check(
      /29,717 of its 30,522 dimensions are active \(97\.4%\): this demo's raw vector is dense, not sparse/.test(claim),
      claim,
    );
    check(
      /log\(1 \+ ReLU\) keeps every positive logit/.test(claim) &&
        !/most entries are zero/.test(el.shadowRoot!.textContent ?? ''),
      claim,
    );
  });

  it('compares the sentence under every k: figures per k and one marker shape per k on the saturation curve', async () => {
    const el = await recorded({ step: 2 });
    const vectors = inside(el, 'lesson-vectors') as HTMLElement & { shadowRoot: ShadowRoot };
    const cell = (figure: string, k: number) =>
      vectors.shadowRoot.querySelector(`tr[data-figure="${figure}"] td[data-k="${k}"]`)?.textContent;
    check(
      cell('activeDims', 1) === '3' && cell('activeDims', 8) === '2',
      `active dims ${cell('activeDims', 1)} ${cell('activeDims', 8)}`,
    );
    check(Number(cell('maxLogit', 1)) > Number(cell('maxLogit', 8)), 'k = 1 has the larger logit');
    const curve = vectors.shadowRoot.querySelector('lesson-saturation')!.shadowRoot!;
    const marks = [...curve.querySelectorAll('path.mark')].map(
      (m) => `${m.getAttribute('data-k')}:${m.getAttribute('data-kind')}:${m.getAttribute('d')?.[0]}`,
    );
    check(marks.length === 4, marks.join(' '));
    const shapes = new Set(
      [...curve.querySelectorAll('path.mark[data-kind="maxLogit"]')].map((m) => m.getAttribute('d')!.replace(/[\d.\s-]/g, '')),
    );
    check(shapes.size === 2, `a different marker shape per k: ${[...shapes].join(' | ')}`);
    const division = vectors.shadowRoot.querySelector('#division-claims li[data-k="8"]');
    check(
      division?.getAttribute('data-fewer') === 'true' &&
        /keeps fewer active dimensions \(3 → 2\)/.test(division.textContent ?? ''),
      division?.textContent ?? 'no division claim',
    );
  });

  it('steps and plays the recorded training into the charts and the watched vectors, then sums it up', async () => {
    const el = await recorded({ step: 3 });
    check(
      /Step 0 of 4|Press Play/.test(inside(el, '#lesson-status').textContent ?? ''),
      inside(el, '#lesson-status').textContent ?? '',
    );
    inside<HTMLButtonElement>(el, '#step-once').click();
    await settle(el);
    check(/Step 1 of 4/.test(inside(el, '#lesson-status').textContent ?? ''), inside(el, '#lesson-status').textContent ?? '');
    const training = inside<LessonTraining>(el, 'lesson-training');
    const probe = training.shadowRoot!.querySelector('sparse-terms[data-k="8"]');
    check(probe?.getAttribute('heading') === 'k = 8 after 1 steps', probe?.getAttribute('heading') ?? 'no probe');
    const apart = training.shadowRoot!.querySelector('.special-apart[data-k="8"]')?.textContent?.replace(/\s+/g, ' ') ?? '';
    check(/Apart, not top terms \(special and \[unused\]\): \[CLS\] 0\.458 and 2 more\./.test(apart), apart);
    check(!(probe as HTMLElement).shadowRoot!.querySelector('li[data-term="[CLS]"]'), '[CLS] is not among the top terms');
    const claim = () => training.shadowRoot!.querySelector('#training-claim')!;
    check(
      /After step 1, k = 8's training queries keep 19,000 active dimensions against 28,000 for k = 1/.test(
        claim().textContent ?? '',
      ) && /before training, the ks are level \(nDCG@10 0\.500 for k = 1 and 0\.500 for k = 8\)/.test(claim().textContent ?? ''),
      claim().textContent ?? '',
    );
    inside<HTMLButtonElement>(el, '#play').click();
    await settle(el, 20);
    check(/Done: 4 steps/.test(inside(el, '#lesson-status').textContent ?? ''), inside(el, '#lesson-status').textContent ?? '');
    const rank = training.shadowRoot!.querySelector<LossChart>('#rank-chart')!;
    check(rank.series.map((s) => s.points.length).join() === '4,4', `rank points ${rank.series.map((s) => s.points.length)}`);
    const ndcg = training.shadowRoot!.querySelector<LossChart>('#ndcg-chart')!;
    check(ndcg.series[1].points.map((p) => p.x).join() === '0,2,4' && !ndcg.log, 'nDCG at the measured steps, linear');

    el.state = lessonState({ step: 4 });
    await settle(el);
    const summary = inside<LessonSummary>(el, '#summary-screen');
    const takeaway = summary.shadowRoot!.querySelector('#takeaway')?.textContent ?? '';
    check(
      /After 4 steps, k = 8 is ahead on both counts: it ranks the held-out queries best \(nDCG@10 0\.580 against 0\.500 for k = 1\), and it costs the least to search \(retrieval FLOPS 20,000 against 28,000 for k = 1, the terms a query and a document are expected to share; 2,000 active dimensions per query against 25,000 for k = 1\)/.test(
        takeaway,
      ),
      takeaway,
    );
    check(summary.shadowRoot!.querySelector('#takeaway')?.getAttribute('data-ndcg-leader') === '8', 'k = 8 leads');
    const losses = summary.shadowRoot!.querySelector('#takeaway-losses')?.textContent ?? '';
    check(/ended at 75 for k = 1 and 5 for k = 8\. Here k = 8 both fits the training batches best/.test(losses), losses);
    const start = summary.shadowRoot!.querySelector('#takeaway-start')?.textContent ?? '';
    check(/k = 1's ranking loss was 300, 15 times that of k = 8/.test(start), start);
    check(summary.shadowRoot!.querySelector('tr[data-k="8"] td[data-measure="ndcg-before"]')?.textContent === '0.500', 'before');
    const printed = inside<LessonSummary>(el, '#summary-print');
    check(printed.shadowRoot!.querySelector('#takeaway')?.textContent === takeaway, 'the printable summary says the same');
    check(getComputedStyle(inside(el, '#print-summary')).display === 'none', 'the printable summary shows only in print');
  });

  it('answers the keyboard with URL changes, and not while the user types', async () => {
    const el = await recorded({ step: 2 });
    const changes = events<Partial<LessonState>>(el, 'lesson-change');
    for (const key of ['n', 'p', '4', '+', '-', 'f']) window.dispatchEvent(new KeyboardEvent('keydown', { key }));
    check(
      JSON.stringify(changes) ===
        JSON.stringify([{ step: 3 }, { step: 1 }, { step: 4 }, { speed: 'fast' }, { speed: 'normal' }, { present: true }]),
      JSON.stringify(changes),
    );
    const input = inside<HTMLInputElement>(el, '#sentence');
    input.disabled = false;
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'n', bubbles: true, composed: true }));
    check(changes.length === 6, 'typing n in the sentence is not a shortcut');
    el.active = false;
    await el.updateComplete;
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'n' }));
    check(changes.length === 6, 'a hidden lesson ignores the keyboard');
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
    check(scrolls[0] > 0 && scrolls.every((y, i) => i === 0 || y >= scrolls[i - 1]), `scrolled down first: ${scrolls}`);
    check(section.getBoundingClientRect().bottom <= window.innerHeight + 8, 'the step is shown to its end before moving on');
    check(JSON.stringify(changes) === '[{"step":3}]', `then the next step: ${JSON.stringify(changes)}`);
    const bottom = window.scrollY;
    press('PageUp');
    check(window.scrollY < bottom && changes.length === 1, 'PageUp scrolls up through the step first');
    for (let i = 0; i < 6 && changes.length === 1; i++) press('ArrowLeft');
    check(JSON.stringify(changes[1]) === '{"step":1}' && section.getBoundingClientRect().top >= -8, JSON.stringify(changes));

    const last = await recorded({ step: 4 });
    const lastChanges = events<Partial<LessonState>>(last, 'lesson-change');
    for (let i = 0; i < 8; i++) press(' ');
    check(lastChanges.length === 0, `Space on the last step never goes back: ${JSON.stringify(lastChanges)}`);
    const training = await recorded({ step: 3 });
    const trainingChanges = events<Partial<LessonState>>(training, 'lesson-change');
    press(' ');
    await settle(training, 20);
    check(
      trainingChanges.length === 0 && /Done: 4 steps/.test(inside(training, '#lesson-status').textContent ?? ''),
      'Space plays step 3',
    );
    window.scrollTo(0, 0);
  });

  it('presenter view: body text of 20 px or more, the settings hidden, the controls stuck to the top, the charts first', async () => {
    const el = await recorded({ step: 3, present: true });
    check(el.hasAttribute('presenter'), 'presenter attribute');
    inside<HTMLButtonElement>(el, '#play').click();
    await settle(el, 20);
    const small = [...el.shadowRoot!.querySelectorAll('.narration p, #lesson-status')].filter(
      (p) => parseFloat(getComputedStyle(p).fontSize) < 20,
    );
    check(small.length === 0, `text under 20 px: ${small.map((p) => p.textContent).join(' | ')}`);
    check(getComputedStyle(inside(el, '#lesson-settings')).display === 'none', 'the settings are hidden');
    check(getComputedStyle(inside(el, '#training-controls')).position === 'sticky', 'the controls stick to the top');
    const training = inside<LessonTraining>(el, 'lesson-training');
    const order = [...training.shadowRoot!.children].map((c) => c.className || c.id || c.localName);
    check(order.indexOf('charts') < order.indexOf('probes'), `charts before the watched query: ${order}`);
    const claim = parseFloat(getComputedStyle(training.shadowRoot!.querySelector('#training-claim')!).fontSize);
    check(claim >= 20, `the training sentence at ${claim} px`);
    check(/Leave presenter view/.test(inside(el, '#presenter').textContent ?? ''), 'the button says how to leave');
  });

  it('takes new ks, a seed and steps from its fields, and refuses what it cannot show', async () => {
    const el = await recorded({ step: 3 });
    const changes = events<Partial<LessonState>>(el, 'lesson-change');
    const ks = inside<HTMLInputElement>(el, '#lesson-ks');
    ks.value = '1, 16';
    ks.dispatchEvent(new Event('change', { bubbles: true }));
    check(JSON.stringify(changes) === '[{"ks":[1,16],"seed":1,"steps":4}]', JSON.stringify(changes));
    ks.value = '4, 4';
    ks.dispatchEvent(new Event('change', { bubbles: true }));
    check(changes.length === 1 && !ks.checkValidity(), 'the same k twice is refused');
    ks.value = '1, 8';
    const steps = inside<HTMLInputElement>(el, '#lesson-steps');
    steps.value = '12';
    steps.dispatchEvent(new Event('change', { bubbles: true }));
    check(JSON.stringify(changes[1]) === '{"ks":[1,8],"seed":1,"steps":12}', JSON.stringify(changes));
    steps.value = '0';
    steps.dispatchEvent(new Event('change', { bubbles: true }));
    check((changes.length as number) === 2 && !steps.checkValidity(), '0 steps are refused');
  });

  it('a recording refuses settings it does not hold, and says how to get them', async () => {
    const el = await recorded({ step: 3, ks: [1, 4] });
    inside<HTMLButtonElement>(el, '#step-once').click();
    await settle(el);
    check(
      /The recording has k = 1 and 8 with seed 1 over 4 steps; other settings need the live lesson/.test(
        inside(el, '#lesson-error').textContent ?? '',
      ),
      inside(el, '#lesson-error').textContent ?? '',
    );
    const longer = await recorded({ step: 3, steps: 40 });
    inside<HTMLButtonElement>(longer, '#step-once').click();
    await settle(longer);
    check(
      /over 4 steps; other settings need the live lesson/.test(inside(longer, '#lesson-error').textContent ?? ''),
      'a recording of 4 steps refuses a lesson of 40',
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
    check(inside(el, '#lesson-mode').dataset.mode === 'live', 'live with WebGPU');
    inside<HTMLButtonElement>(el, '#step-once').click();
    await settle(el);
    const notice = () => el.shadowRoot!.querySelector('#slow-notice')?.textContent?.replace(/\s+/g, ' ') ?? '';
    check(/This GPU takes [\d.]+ s a step on average: the 3 steps left would take about/.test(notice()), notice());
    // once told, the notice stays while faster steps bring the mean down: it never comes and goes under the charts
    el.slowStepMs = 1e9;
    inside<HTMLButtonElement>(el, '#step-once').click();
    await settle(el);
    check(/the 2 steps left/.test(notice()), `the notice stays, its estimate from the mean: ${notice()}`);
    check(
      /s per step on average, about .* left/.test(inside(el, '#lesson-status').textContent ?? ''),
      'status: mean and time left',
    );
    const changes = events<Partial<LessonState>>(el, 'lesson-change');
    inside<HTMLButtonElement>(el, '#use-recording').click();
    check(JSON.stringify(changes) === '[{"mode":"recorded"}]', JSON.stringify(changes));
  });
});

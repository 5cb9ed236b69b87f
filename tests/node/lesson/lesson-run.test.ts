// The teaching lesson's live training (app layer) on a tiny model: frames in step order with the held-out measure at
// the measured steps; each k's run depends only on its own k (same weights and batches); everything freed after;
// the sentence's vector figures follow from its weights; a trace round-trips and a broken one is refused; the CLI.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openModelSession, type ModelSession } from '../../../src/app/model/model-session.ts';
import { LessonRun } from '../../../src/app/lesson/lesson-run.ts';
import { type LessonFrame } from '../../../src/contract/lesson/lesson-frames.ts';
import {
  LESSON_DEFAULTS,
  LESSON_RECIPE,
  checkLessonSettings,
  lessonTaskFor,
  measuredAt,
} from '../../../src/contract/lesson/lesson-settings.ts';
import { playWholeLesson } from '../../../src/app/lesson/lesson-trace.ts';
import { parseLessonTrace, type LessonTrace, LESSON_TRACE_FORMAT } from '../../../src/contract/lesson/lesson-trace.ts';
import { lessonSentence, lessonVector } from '../../../src/app/lesson/lesson-vector.ts';
import { nodePlatform } from '../../../src/app/platform/platform-node.ts';
import type { GpuContext } from '../../../src/gpu/context.ts';
import { runCli } from '../../helpers/cli.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';
import { sparseOf } from '../../helpers/sparse-of.ts';

let root: string;

let ctx: GpuContext;

let session: ModelSession;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-lesson-'));
  await writeTinySpladeModel(join(root, 'tiny'));
  ctx = await gpuContext();
  session = await openModelSession(ctx, nodePlatform, { kind: 'folder', path: join(root, 'tiny') });
});
afterAll(async () => {
  session?.destroy();
  await rm(root, { recursive: true, force: true });
});

describe('lesson settings', () => {
  it('fills defaults and refuses what a lesson cannot show', () => {
    expect(checkLessonSettings({})).toEqual(LESSON_DEFAULTS);
    expect(() => checkLessonSettings({ ks: [4] })).toThrow(/number of k values in a lesson must be/);
    expect(() => checkLessonSettings({ ks: [1, 2, 4, 8] })).toThrow(/number of k values in a lesson must be/);
    expect(() => checkLessonSettings({ ks: [4, 4] })).toThrow(/must differ/);
    expect(() => checkLessonSettings({ ks: [1, 100] })).toThrow(/k must be/);
    expect(() => checkLessonSettings({ steps: 0 })).toThrow(/Lesson steps must be/);
    expect(() => checkLessonSettings({ seed: -1 })).toThrow(/seed must be/);
  });

  it('measures before training, every N steps and after the last', () => {
    const settings = checkLessonSettings({ steps: 7, measureEvery: 3 });
    expect([...Array(8).keys()].filter((step) => measuredAt(step, settings))).toEqual([0, 3, 6, 7]);
  });
});

describe('a vector as the lesson explains it', () => {
  it('gives FLOPS, the weight sum and the logits each weight saturates', () => {
    const vector = sparseOf([7, 0.5], [9, 2], [11, 1]);
    const view = lessonVector('the cat sat', 4, vector, session.model.tokenizer, 2);
    expect(view.k).toBe(4);
    expect(view.flops).toBeCloseTo(0.25 + 4 + 1, 12);
    expect(view.weightSum).toBeCloseTo(3.5, 12);
    expect(view.maxWeight).toBe(2);
    expect(view.maxLogit).toBeCloseTo(Math.E ** 2 - 1, 12);
    expect(view.medianLogit).toBeCloseTo(Math.E - 1, 12);
    expect(view.terms.map((t) => t.id)).toEqual([9, 11]);
    expect(view.activeDims).toBe(3);
  });

  it('lists the special pieces apart from the top terms; they keep their weights and count as active', () => {
    // ids 2 and 3 are [CLS] and [SEP] (the heaviest), 9 and 11 words
    const vector = sparseOf([2, 3], [3, 2.5], [9, 2], [11, 1]);
    const view = lessonVector('the cat sat', 1, vector, session.model.tokenizer, 2);
    expect(view.terms.map((t) => t.term)).not.toContain('[CLS]');
    expect(view.terms.map((t) => t.id)).toEqual([9, 11]);
    expect(view.special.map((t) => [t.term, t.weight])).toEqual([
      ['[CLS]', 3],
      ['[SEP]', 2.5],
    ]);
    expect([view.specialDims, view.activeDims, view.vocabSize]).toEqual([2, 4, session.model.tokenizer.vocabSize]);
    expect(view.maxWeight).toBe(3);
  });

  it('encodes the sentence under each k: the larger k, the smaller the largest logit', async () => {
    const views = await lessonSentence(session, 'the cat sat on the mat', [1, 8], 5, 16);
    expect(views.map((v) => v.k)).toEqual([1, 8]);
    expect(views[1].maxLogit).toBeLessThan(views[0].maxLogit);
    expect(views[1].flops).toBeLessThan(views[0].flops);
  });
});

describe('the live lesson', () => {
  const settings = { ks: [1, 4], seed: 3, steps: 3, measureEvery: 2 };

  /** Plays a whole lesson of `ks` (watched query 1), checks it refuses a step more, frees it; its frames and facts. */
  async function playLesson(ks: number[]): Promise<{ frames: LessonFrame[]; facts: LessonRun['facts'] }> {
    const run = await LessonRun.open(ctx, session.model, { ...settings, ks }, 1);
    try {
      const frames = await playWholeLesson(run);
      await expect(run.advance()).rejects.toThrow(/3 steps are done/);
      return { frames, facts: run.facts };
    } finally {
      run.destroy();
    }
  }
  /** The lesson beside k = 4, played once for both tests below whichever runs first (neither depends on the other). */
  let besideFour: ReturnType<typeof playLesson> | undefined;
  const lessonBesideFour = () => (besideFour ??= playLesson([1, 4]));

  it('plays frames 0 to the last step, measuring the held-out queries at the measured steps, and frees everything', async () => {
    const before = ctx.allocatedBytes;
    const { frames, facts } = await lessonBesideFour();
    expect(ctx.allocatedBytes).toBe(before);
    expect(facts.probe).toBe(facts.probe.trim());
    expect(facts.queries).toBeGreaterThan(1);
    expect(frames.map((f) => f.step)).toEqual([0, 1, 2, 3]);
    for (const frame of frames) {
      expect(frame.runs.map((r) => r.k)).toEqual([1, 4]);
      for (const r of frame.runs) {
        expect(r.probe.text).toBe(facts.probe);
        expect(r.heldOut !== null).toBe([0, 2, 3].includes(frame.step));
        if (r.heldOut) expect(r.heldOut.ndcg10).toBeGreaterThanOrEqual(0);
        expect(r.losses === null).toBe(frame.step === 0);
        if (r.losses) expect(Number.isFinite(r.losses.total) && r.losses.rank >= 0).toBe(true);
      }
    }
  });

  it("each k's run depends only on its k: the k = 1 run (watched query 1) is the same beside k = 4 as beside k = 8", async () => {
    const besideEight = (await playLesson([1, 8])).frames;
    const { frames } = await lessonBesideFour();
    expect(besideEight.map((frame) => frame.runs[0])).toEqual(frames.map((frame) => frame.runs[0]));
    expect(besideEight.map((frame) => frame.runs[1].k)).toEqual([8, 8, 8, 8]);
  });

  it('refuses a watched query outside the held-out ones', async () => {
    await expect(LessonRun.open(ctx, session.model, settings, 999)).rejects.toThrow(/watched query must be 0 to/);
  });
});

describe('lesson traces', () => {
  it('the CLI records a whole lesson that parses back, and the page refuses a broken one', async () => {
    const file = join(root, 'trace.json');
    const { code, stdout } = await runCli(
      'lesson',
      '--model',
      join(root, 'tiny'),
      '--ks',
      '1,8',
      '--steps',
      '2',
      '--measure-every',
      '2',
      '--trace',
      file,
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/step 0 .*\n {2}k = 1: before training {2}nDCG@10 [\d.]+/);
    expect(stdout).toMatch(/step 2 .*\n {2}k = 1: rank [\d.]+ {2}FLOPS\(q\) [\d.]+ {2}nDCG@10/);
    const trace = parseLessonTrace(JSON.parse(await readFile(file, 'utf8')), file);
    expect(trace.format).toBe(LESSON_TRACE_FORMAT);
    expect(trace.frames).toHaveLength(3);
    expect(trace.sentence.map((v) => v.k)).toEqual([1, 8]);
    expect(trace.facts.settings).toEqual({ ks: [1, 8], seed: 1, steps: 2, measureEvery: 2 });

    const broken = (patch: (t: LessonTrace) => unknown) => {
      const copy = structuredClone(trace) as LessonTrace;
      patch(copy);
      return () => parseLessonTrace(JSON.parse(JSON.stringify(copy)), 'bad.json');
    };
    expect(() => parseLessonTrace([], 'bad.json')).toThrow(/bad.json is not a splade-lab lesson trace: its "format"/);
    expect(broken((t) => (t.version = 2 as 1))).toThrow(/version 2/);
    expect(broken((t) => t.frames.pop())).toThrow(/2 frames for 2 steps/);
    expect(broken((t) => (t.frames[1].step = 5))).toThrow(/frame 1 is step 5/);
    expect(broken((t) => (t.frames[2].runs[1].losses!.total = NaN))).toThrow(/frame 2 has no finite losses for k = 8/);
    expect(broken((t) => t.frames[1].runs.reverse())).toThrow(/frame 1 does not hold the ks 1, 8/);
    expect(broken((t) => t.sentence.pop())).toThrow(/1 sentence vectors for 2 ks/);
  });
});

describe('the bundled recording (public/lesson/trace.json)', () => {
  it('is a whole lesson made with the defaults, the recipe and the task this code has (npm run lesson-trace remakes it)', async () => {
    const file = join(process.cwd(), 'public', 'lesson', 'trace.json');
    const trace = parseLessonTrace(JSON.parse(await readFile(file, 'utf8')), file);
    expect(trace.facts.settings).toEqual(LESSON_DEFAULTS);
    expect(trace.facts.recipe).toEqual(LESSON_RECIPE);
    const task = lessonTaskFor(LESSON_DEFAULTS.seed);
    expect([trace.facts.probe, trace.facts.queries, trace.facts.documents, trace.facts.triplets]).toEqual([
      task.queries[0].text,
      task.queries.length,
      task.corpus.length,
      task.triplets.length,
    ]);
    expect(trace.model).toBe('the demo backbone');
    // what the lesson shows: the divided head ends better on the held-out queries
    const [plain, divided] = trace.frames.at(-1)!.runs.map((r) => r.heldOut!.ndcg10);
    expect(divided).toBeGreaterThan(plain);
  });
});

// Alarm rules on recorded traces of the demo backbone (CLI logs: a k = 1 run that stays dense, a run whose lambdas are
// far too large and empty the vectors, a calibrated run on the lesson's task that learns and raises nothing, a run
// calibrated for a sparsity the random backbone cannot rank at) and on hand-made reports; the stall and huge-start
// rules per loss and number of negatives (contrastive chance log((1+n)B); MarginMSE and KL at what equal scores give).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isSpecialTerm, type Alarm, type AlarmRule } from '../../../src/contract/training/alarm-rules.ts';
import { AlarmWatcher } from '../../../src/app/training/alarm-watcher.ts';
import type { ProbeSnapshot } from '../../../src/contract/training/probes.ts';
import type { StepReport } from '../../../src/contract/training/training-report.ts';
import { equalScoresLoss } from '../../../src/contract/training/loss-levels.ts';
import { alarmContext } from '../../../src/contract/training/alarm-rules.ts';
import { paperRecipe } from '../../../src/contract/training/recipe.ts';
import { planTraining } from '../../../src/contract/training/training-request.ts';

const BERT_SPECIALS = new Set(['[CLS]', '[SEP]', '[PAD]', '[MASK]', '[UNK]']);

/** Feeds a recorded CLI log (start, step and probe events) to a watcher, in order; returns every alarm raised. */
function replay(name: string): Alarm[] {
  const events = readFileSync(new URL(`../../fixtures/health-traces/${name}`, import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const start = events[0];
  const watcher = new AlarmWatcher(
    { batchSize: start.recipe.batchSize, vocabSize: start.vocabSize, totalSteps: start.steps },
    BERT_SPECIALS,
  );
  const alarms: Alarm[] = [];
  for (const e of events.slice(1)) {
    if (e.event === 'step') alarms.push(...watcher.onReport({ ...e, step: e.step - 1 } as StepReport));
    else if (e.event === 'probe') alarms.push(...watcher.onProbes(e as ProbeSnapshot));
  }
  return alarms;
}

const rules = (alarms: Alarm[]) => alarms.map((a) => a.rule).sort();

function report(step: number, over: Partial<StepReport> = {}): StepReport {
  return {
    step,
    steps: 100,
    rank: 1.5,
    flopsQueries: 10,
    flopsDocuments: 20,
    lambdaQueries: 0.05,
    lambdaDocuments: 0.003,
    total: 1.5 + 0.05 * 10 + 0.003 * 20,
    activeQueries: 40,
    gradNorm: 1.2,
    activeDocuments: 150,
    paperBatchFlopsQueries: 9,
    paperBatchFlopsDocuments: 19,
    squaredNormQueries: 30,
    squaredNormDocuments: 40,
    lr: 1e-4,
    msPerStep: 10,
    stepsPerSecond: 100,
    tokensPerSecond: 20000,
    position: { epoch: 0, index: 0 },
    ...over,
  };
}

describe('alarms on recorded demo traces', () => {
  it('k = 1 with the paper recipe: densification, with scores huge from the start', () => {
    const alarms = replay('densify-k1.jsonl');
    // the FLOPS of 30k-dimension vectors (about 6e4) outweighs the ranking loss once lambda_q is in
    expect(rules(alarms)).toEqual(['densification', 'exploding-scores', 'flops-dominates']);
    const dense = alarms.find((a) => a.rule === 'densification')!;
    expect(dense.severity).toBe('alarm');
    expect(dense.step).toBeGreaterThanOrEqual(10); // once the ramp is complete (a third of 30 steps)
    expect(dense.evidence).toMatch(/of 30522 \(\d+% of the vocabulary\)/);
    expect(dense.advice).toContain('larger k');
    expect(dense.ranges).toContain('naver/splade-cocondenser-ensembledistil');
  });

  it('lambdas far too large: the vectors empty (collapse) and the ranking loss sits at log(2B)', () => {
    const alarms = replay('collapse-large-lambdas.jsonl');
    expect(rules(alarms)).toEqual(expect.arrayContaining(['collapse', 'chance-loss']));
    expect(rules(alarms)).not.toContain('densification');
    const collapse = alarms.find((a) => a.rule === 'collapse')!;
    expect(collapse.advice).toContain('lower lambda_q and lambda_d');
    expect(alarms.find((a) => a.rule === 'chance-loss')!.evidence).toContain(
      'log((1+n)B) = log(8) = 2.0794 for B = 4 queries and n = 1 negative',
    );
  });

  it('calibrated lambdas on the lesson task (k = 32, 2000/5000 active dimensions): sparse, learning, nothing raised', () => {
    const events = readFileSync(new URL('../../fixtures/health-traces/calibrated-lesson-k32.jsonl', import.meta.url), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const steps = events.filter((e) => e.event === 'step');
    const last = steps.slice(-10);
    const mean = (key: string) => last.reduce((sum, e) => sum + e[key], 0) / last.length;
    // what the trace is: vectors at a sixth of the vocabulary or less, and a ranking loss well below chance, log(16)
    expect(mean('activeDocuments')).toBeLessThan(30522 / 6);
    expect(mean('rank')).toBeLessThan(0.5 * Math.log(16));
    expect(events.filter((e) => e.event === 'probe').length).toBeGreaterThanOrEqual(10);
    expect(replay('calibrated-lesson-k32.jsonl')).toEqual([]);
    // on random weights an [unusedN] row is as likely to survive as any other: one sits in a single probe's top 10 now
    // and then (steps 80 and 90 here), never shared by the other probes as a leaked special token is
    const probes = events.filter((e) => e.event === 'probe' && e.step >= 50) as ProbeSnapshot[];
    const withUnused = probes.map(
      (snapshot) => snapshot.probes.filter((p) => p.terms.slice(0, 10).some((t) => isSpecialTerm(t.term, BERT_SPECIALS))).length,
    );
    expect(Math.max(...withUnused)).toBe(1);
  });

  it('calibrated lambdas for a sparsity the random demo backbone cannot reach while ranking: neither dense nor empty, but not ranking', () => {
    // the demo's random weights cannot learn to rank in 40 steps: once its vectors are sparse its ranking loss sits at log(2B)
    const alarms = replay('calibrated-demo.jsonl');
    expect(rules(alarms)).not.toContain('densification');
    expect(rules(alarms)).not.toContain('collapse');
    expect(rules(alarms)).toContain('chance-loss');
  });
});

describe('alarm rules', () => {
  it('names special and unused pieces', () => {
    for (const term of ['[CLS]', '[unused12]', '<unused3>']) expect(isSpecialTerm(term, BERT_SPECIALS)).toBe(true);
    for (const term of ['unused', '##s', 'season', '[city]']) expect(isSpecialTerm(term, BERT_SPECIALS)).toBe(false);
  });

  it('raises nothing on a healthy trace, and each rule once', () => {
    const watcher = new AlarmWatcher({ batchSize: 8, vocabSize: 30522, totalSteps: 100 });
    const healthy = Array.from({ length: 20 }, (_, i) => watcher.onReport(report(i * 5)));
    expect(healthy.flat()).toEqual([]);
    const empty = (step: number) => watcher.onReport(report(step, { activeQueries: 0.5, activeDocuments: 3 }));
    expect(rules(empty(96))).toEqual(['collapse']);
    expect(empty(97)).toEqual([]);
    expect(watcher.raisedRules).toEqual(['collapse']);
  });

  it('needs the loss at log(2B) for 5% of the steps and two reports, after warm-up, for the chance-loss alarm', () => {
    const watcher = new AlarmWatcher({ batchSize: 4, vocabSize: 1000, totalSteps: 100 });
    const chance = (step: number) => watcher.onReport(report(step, { rank: Math.log(8) * 1.01 }));
    expect(chance(1)).toEqual([]); // before 10% of the steps
    expect(chance(20)).toEqual([]);
    expect(watcher.onReport(report(21))).toEqual([]); // the streak breaks
    expect(chance(22)).toEqual([]);
    expect(chance(24)).toEqual([]);
    expect(chance(26)).toEqual([]); // held over steps 23-27: 4 steps
    const raised = chance(27);
    expect(rules(raised)).toEqual(['chance-loss']);
    expect(raised[0].evidence).toContain('held since step 23 (4 reports)');
  });

  it('judges a run alike whether it reports every 2 steps (the page) or every 10 (the CLI)', () => {
    // the same run: the ranking loss reaches log(2B) at step 40 and stays; FLOPS dominate from step 60
    const at = (step: number) => (step >= 40 ? { rank: Math.log(16) } : {}) as Partial<StepReport>;
    const heavy = (step: number) =>
      (step >= 60 ? { flopsQueries: 100, total: 1.5 + 0.05 * 100 + 0.003 * 20 } : {}) as Partial<StepReport>;
    const raisedAt = (every: number) => {
      const watcher = new AlarmWatcher({ batchSize: 8, vocabSize: 30522, totalSteps: 200 });
      const steps = new Map<AlarmRule, number>();
      for (let taken = every; taken <= 200; taken += every)
        for (const alarm of watcher.onReport(report(taken - 1, { ...at(taken), ...heavy(taken) })))
          steps.set(alarm.rule, alarm.step);
      return steps;
    };
    const page = raisedAt(2);
    const cli = raisedAt(10);
    expect([...page.keys()].sort()).toEqual(['chance-loss', 'flops-dominates']);
    expect([...cli.keys()].sort()).toEqual(['chance-loss', 'flops-dominates']);
    // 10 steps (5% of 200) after the evidence began, or the first CLI report after that
    expect(page.get('chance-loss')).toBe(50);
    expect(cli.get('chance-loss')).toBe(50);
    expect(page.get('flops-dominates')).toBe(70);
    expect(cli.get('flops-dominates')).toBe(70);
  });

  it('asks a long run for at most 500 steps of lasting evidence', () => {
    const watcher = new AlarmWatcher({ batchSize: 8, vocabSize: 30522, totalSteps: 150_000 });
    const chance = (taken: number) => watcher.onReport(report(taken - 1, { rank: Math.log(16) }));
    expect(chance(20_000)).toEqual([]);
    expect(chance(20_400)).toEqual([]);
    const raised = chance(20_500);
    expect(rules(raised)).toEqual(['chance-loss']);
    expect(raised[0].ranges).toContain('for at least 500 steps (5% of the run, at most 500) and 2 reports');
  });

  it('raises FLOPS dominance once it lasts, and densification only once the ramp is complete', () => {
    const watcher = new AlarmWatcher({ batchSize: 8, vocabSize: 1000, totalSteps: 90 });
    const heavy = (step: number) =>
      watcher.onReport(report(step, { rank: 1, flopsQueries: 100, total: 1 + 0.05 * 100 + 0.003 * 20, activeDocuments: 900 }));
    expect(heavy(10)).toEqual([]);
    expect(heavy(13)).toEqual([]);
    expect(rules(heavy(15))).toEqual(['flops-dominates']); // steps 11-16: 5 steps, 5% of 90 rounded up
    expect(rules(heavy(29))).toEqual(['densification']); // step 30 of 90
  });

  it('raises special terms shared by half the probes once they last after the ramp, and empty probe vectors as collapse', () => {
    const watcher = new AlarmWatcher({ batchSize: 8, vocabSize: 1000, totalSteps: 30 }, BERT_SPECIALS);
    const probe = (terms: string[], activeDims = 5) => ({
      role: 'query' as const,
      text: terms.join(' '),
      tokens: ['q'],
      activeDims,
      terms: terms.map((term, id) => ({ term, id, weight: 1 / (id + 1), expansion: false })),
    });
    const snapshot = (step: number, ...probes: ReturnType<typeof probe>[]): ProbeSnapshot => ({ step, probes, scores: [] });
    expect(watcher.onProbes(snapshot(5, probe(['[SEP]', 'a']), probe(['[SEP]'])))).toEqual([]); // before the ramp is complete
    // one probe of four with an [unusedN] piece: what a random head's rows do now and then
    const lone = (step: number) => snapshot(step, probe(['a', '[unused3]']), probe(['b']), probe(['c']), probe(['d']));
    expect(watcher.onProbes(lone(10))).toEqual([]);
    expect(watcher.onProbes(lone(12))).toEqual([]);
    // the same piece in two probes of four
    const shared = (step: number) =>
      snapshot(step, probe(['a', '[CLS]']), probe(['[CLS]', 'b']), probe(['c', '[unused7]']), probe(['d']));
    expect(watcher.onProbes(shared(14))).toEqual([]);
    const raised = watcher.onProbes(shared(16)); // steps 14-16: 2 steps (5% of 30, rounded up)
    expect(rules(raised)).toEqual(['special-terms']);
    expect(raised[0].evidence).toContain('2 of 4 probes share');
    expect(raised[0].evidence).toContain('[CLS] 0.50');
    expect(raised[0].evidence).not.toContain('[unused7]');
    expect(rules(watcher.onProbes(snapshot(20, probe(['a'], 0))) as Alarm[])).toEqual(['collapse' as AlarmRule]);
  });

  it('counts a lone probe as half of the probes', () => {
    const watcher = new AlarmWatcher({ batchSize: 8, vocabSize: 1000, totalSteps: 30 }, BERT_SPECIALS);
    const snapshot = (step: number): ProbeSnapshot => ({
      step,
      probes: [
        {
          role: 'document',
          text: 'd',
          tokens: ['d'],
          activeDims: 3,
          terms: [{ term: '<unused2>', id: 2, weight: 1, expansion: true }],
        },
      ],
      scores: [],
    });
    expect(watcher.onProbes(snapshot(10))).toEqual([]);
    expect(rules(watcher.onProbes(snapshot(20)))).toEqual(['special-terms']);
  });
});

describe('alarms per loss and number of negatives', () => {
  /** Reports every 5 steps of a 100-step run from step 10 on, the ranking loss (and the batch's level) as given. */
  function watch(context: Partial<Parameters<typeof alarmContext>[0]> & object, over: Partial<StepReport>, loss?: string) {
    const recipe = { ...paperRecipe(100, 4), ...context } as Parameters<typeof alarmContext>[0];
    const watcher = new AlarmWatcher(alarmContext(loss ? { ...recipe, loss: loss as 'kl' } : recipe, 30522));
    return Array.from({ length: 18 }, (_, i) => watcher.onReport(report(10 + 5 * i, over))).flat();
  }

  it.each([
    [1, Math.log(8), 'log((1+n)B) = log(8) = 2.0794 for B = 4 queries and n = 1 negative (each query against all 8 documents'],
    [
      3,
      Math.log(16),
      'log((1+n)B) = log(16) = 2.7726 for B = 4 queries and n = 3 negatives (each query against all 16 documents',
    ],
  ])('contrastive with %i negative(s): chance is log((1+n)B), every document of the batch a candidate', (n, chance, evidence) => {
    const negatives = n > 1 ? { negatives: n } : {};
    const stuck = watch(negatives, { rank: chance * 1.01 });
    expect(rules(stuck)).toEqual(['chance-loss']);
    expect(stuck[0].title).toBe('The ranking loss is stuck at chance, log((1+n)B)');
    expect(stuck[0].evidence).toContain(evidence);
    expect(stuck[0].ranges).toContain('Within 2% of log((1+n)B)');
    // log(2B) is not chance with 3 negatives: a loss sitting there is learning
    if (n > 1) expect(watch(negatives, { rank: Math.log(8) })).toEqual([]);
  });

  it('marginmse at B = 4: a healthy loss of 2.08 (log(2B)) raises nothing, and --stop-on-alarm would not stop it', () => {
    const healthy = watch({ loss: 'marginmse' }, { rank: 2.08, rankAtEqualScores: 25.3 });
    expect(healthy).toEqual([]);
    // older records carry no level: no stall rule for a distillation loss, never chance
    expect(watch({ loss: 'marginmse' }, { rank: 2.08 })).toEqual([]);
    const plan = planTraining(
      {
        k: 1,
        steps: 100,
        batchSize: 4,
        queryLength: 8,
        documentLength: 8,
        loss: 'marginmse',
        checkpointEvery: 10,
        resume: false,
        stopOnAlarm: true,
      },
      400,
    );
    expect(plan.stopOn).toContain('chance-loss');
  });

  it("marginmse: a loss held at the batch's mean squared teacher margin (every student margin 0) is the stall", () => {
    const stuck = watch({ loss: 'marginmse' }, { rank: 25.3 * 1.01, rankAtEqualScores: 25.3 });
    expect(rules(stuck)).toEqual(['chance-loss']);
    expect(stuck[0].severity).toBe('alarm');
    expect(stuck[0].title).toBe("The student's margins are not moving (MarginMSE stuck where zero margins put it)");
    expect(stuck[0].evidence).toContain(
      "the MarginMSE loss is 25.5530; the batch's mean squared teacher margin = 25.3000 (the MarginMSE of student margins that are all 0)",
    );
    expect(stuck[0].evidence).not.toContain('log(');
  });

  it('kl: a loss held at T²·KL(teacher ‖ uniform) (equal student scores) is the stall; a huge start is measured against T²·log(1 + n)', () => {
    const kl = { loss: 'kl' as const, tau: 2, negatives: 3 };
    const stuck = watch(kl, { rank: 0.8 * 0.99, rankAtEqualScores: 0.8 });
    expect(rules(stuck)).toEqual(['chance-loss']);
    expect(stuck[0].title).toBe("The student's scores are equal (KL stuck where equal scores put it)");
    expect(stuck[0].evidence).toContain("(the KL loss of equal student scores over each query's 4 candidates, T = 2)");
    expect(watch(kl, { rank: Math.log(8), rankAtEqualScores: 0.8 })).toEqual([]);
    const huge = watch(kl, { rank: 300, rankAtEqualScores: 0.8 });
    const exploding = huge.find((a) => a.rule === 'exploding-scores')!;
    expect(exploding.evidence).toBe(
      'The ranking loss at step 11 is 300.0, 54 times T²·log(1 + n) = 5.545 (the most equal scores can give, at T = 2 and n = 3).',
    );
    expect(exploding.evidence).not.toContain('log(2B)');
  });

  it('marginmse: a huge start is measured against what equal scores give (every student margin 0)', () => {
    const huge = watch({ loss: 'marginmse' }, { rank: 5000, rankAtEqualScores: 20 });
    expect(huge.find((a) => a.rule === 'exploding-scores')!.evidence).toBe(
      "The ranking loss at step 11 is 5000, 250 times the batch's mean squared teacher margin = 20.00 (what equal scores give: every student margin 0).",
    );
  });

  it('equal student scores give: log((1+n)B); the mean squared margin (of score lists too); T²·KL(teacher ‖ uniform)', () => {
    expect(equalScoresLoss('contrastive', 4, 3, 1)).toBeCloseTo(Math.log(16), 15);
    const margins = [2, -1, 3, 0]; // B = 2, n = 2
    expect(equalScoresLoss('marginmse', 2, 2, 1, margins)).toBeCloseTo((4 + 1 + 9) / 4, 15);
    const scores = [5, 3, 6, 1, -2, 1]; // the same margins as [pos, neg_1, neg_2] scores
    expect(equalScoresLoss('marginmse', 2, 2, 1, scores)).toBeCloseTo((4 + 1 + 9) / 4, 15);
    // KL: a uniform teacher is matched by equal scores (0); a one-hot one is KL = log(1 + n) from them, times T²
    expect(equalScoresLoss('kl', 1, 2, 2, [3, 3, 3])).toBeCloseTo(0, 15);
    expect(equalScoresLoss('kl', 1, 2, 2, [1e4, 0, 0])).toBeCloseTo(4 * Math.log(3), 10);
    const p = [Math.exp(1), 1, Math.exp(-1)].map((x, _, all) => x / all.reduce((a, b) => a + b, 0)); // scores 2, 0, -2 at T = 2
    const expected = 4 * p.reduce((sum, pj) => sum + pj * Math.log(3 * pj), 0);
    expect(equalScoresLoss('kl', 1, 2, 2, [2, 0, -2])).toBeCloseTo(expected, 14);
  });
});

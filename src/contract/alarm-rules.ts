// Rules that watch a training run's reports and probes and raise alarms (collapse, densification, special tokens
// among the top terms, a FLOPS term that dominates, a ranking loss stuck where equal scores put it: chance for the
// contrastive loss, zero student margins for MarginMSE, equal student scores for KL), each naming the step, the
// evidence and what to change, with the healthy ranges it uses and their source. Pure: the same rules for the page,
// the CLI and recorded traces.
import type { StepReport } from './training-report.ts';
import type { ProbeSnapshot } from './probes.ts';
import type { RankingLossKind, TrainingRecipe } from './recipe.ts';
import { contrastiveCandidates, contrastiveChance, klCeiling } from './loss-levels.ts';

export type AlarmRule = 'collapse' | 'densification' | 'exploding-scores' | 'special-terms' | 'flops-dominates' | 'chance-loss';

export const ALARM_RULES: readonly AlarmRule[] = [
  'collapse',
  'densification',
  'exploding-scores',
  'special-terms',
  'flops-dominates',
  'chance-loss',
];

export interface Alarm {
  rule: AlarmRule;
  /** 'alarm': the run is failing; 'warning': it may be. */
  severity: 'alarm' | 'warning';
  /** Steps taken when it was raised (1-based, as reports print). */
  step: number;
  title: string;
  /** The numbers that raised it. */
  evidence: string;
  /** What to change. */
  advice: string;
  /** The thresholds the rule uses and where they come from. */
  ranges: string;
}

/** Sizes of the run, and its loss, the rules need. */
export interface AlarmContext {
  batchSize: number;
  vocabSize: number;
  totalSteps: number;
  /** The ranking loss (absent: the contrastive loss). */
  loss?: RankingLossKind;
  /** Negatives per row, n (absent: 1). */
  negatives?: number;
  /** Temperature of the KL loss (absent: 1). */
  temperature?: number;
}

/** The alarms' context of a run's recipe. */
export function alarmContext(recipe: TrainingRecipe, vocabSize: number): AlarmContext {
  return {
    batchSize: recipe.batchSize,
    vocabSize,
    totalSteps: recipe.schedule.totalSteps,
    loss: recipe.loss ?? 'contrastive',
    negatives: recipe.negatives ?? 1,
    temperature: recipe.tau,
  };
}

/** Published active dimensions of a well-trained SPLADE model, quoted in every sparsity alarm. */
export const HEALTHY_ACTIVE_DIMS = {
  queries: [40, 73],
  documents: [62, 206],
  source:
    "naver/splade-cocondenser-ensembledistil evaluated by sentence-transformers' SparseInformationRetrievalEvaluator " +
    '(its example outputs on NFCorpus, NanoMSMARCO, NanoQuora and NanoBEIR-13)',
} as const;

/** Thresholds of the rules. */
export const ALARM_THRESHOLDS = {
  /** Mean active dimensions below which vectors count as empty. */
  collapseBelow: 1,
  /** Share of the vocabulary active above which vectors count as dense. */
  denseShare: 0.5,
  /** Densification and special terms are only called once the FLOPS ramp is complete (a third of the run): a healthy run may start dense. */
  afterRampShare: 1 / 3,
  /**
   * A starting ranking loss this many times what equal scores give (contrastive: log((1 + n)B); MarginMSE: the mean
   * squared teacher margin; KL: T²·log(1 + n), the most equal scores can give) means scores in the hundreds or more.
   */
  explodingFactor: 10,
  /**
   * A rule that needs its evidence to last (FLOPS dominance, a loss at chance, special terms) raises when the evidence
   * held at every report (or probe snapshot) over at least this share of the run's steps (at most lastingMaxSteps, so
   * that a long run is not left failing for thousands of steps), and at two reports at least: measured in steps, so the
   * page (a report every few steps) and the CLI (every ten) judge a run alike.
   */
  lastingShare: 0.05,
  lastingMaxSteps: 500,
  lastingReports: 2,
  /** Weighted FLOPS above this share of the total loss, lasting. */
  flopsShare: 0.5,
  /**
   * The ranking loss within this relative distance of what equal scores give (contrastive: chance, log((1 + n)B);
   * MarginMSE: the batch's mean squared teacher margin; KL: the batch's T²·KL(teacher ‖ uniform)), lasting, after
   * warm-up.
   */
  chanceTolerance: 0.02,
  /** Top terms of a probe that are looked at for special tokens. */
  specialTopTerms: 10,
  /**
   * Share of the probes whose top terms must hold the same special piece: a leaked special token matches every text,
   * while an untrained [unusedN] row of a random head lands in one probe's top 10 now and then, as any row does.
   */
  specialProbeShare: 0.5,
} as const;

const HEALTHY = `Healthy: about ${HEALTHY_ACTIVE_DIMS.queries.join('-')} active dimensions per query and ${HEALTHY_ACTIVE_DIMS.documents.join('-')} per document (${HEALTHY_ACTIVE_DIMS.source}).`;

/** What to change when vectors empty, from the batch or from the probes. */
const COLLAPSE_ADVICE =
  'The FLOPS term has pushed every weight to zero: lower lambda_q and lambda_d (the calibrator finds values for a target), ' +
  'or a smaller k if the head was shrunk a lot (a head divided too much starts near zero and cannot recover); ' +
  'a longer FLOPS ramp also helps.';

/** Tokens that are special to the tokenizer, or the numbered reserved pieces of a vocabulary that stand for no word (BERT's, bracketed or angled). */
export function isSpecialTerm(term: string, specialTerms: ReadonlySet<string>): boolean {
  return specialTerms.has(term) || /^[[<]unused\d+[\]>]$/.test(term);
}

/**
 * Watches one run: feed it each report and probe snapshot in order; it returns the alarms they raise. Each rule is
 * raised once per run (the first time its evidence holds).
 */
export class AlarmWatcher {
  private readonly raised = new Set<AlarmRule>();
  private firstReport: StepReport | null = null;
  private readonly flopsHeavy: Lasting;
  private readonly atChance: Lasting;
  private readonly specialShared: Lasting;

  constructor(
    private readonly context: AlarmContext,
    /** The tokenizer's special tokens ([CLS], <s>, ...), as their strings. */
    private readonly specialTerms: ReadonlySet<string> = new Set(),
  ) {
    const lastingSteps = Math.max(
      1,
      Math.min(ALARM_THRESHOLDS.lastingMaxSteps, Math.ceil(ALARM_THRESHOLDS.lastingShare * context.totalSteps)),
    );
    this.flopsHeavy = new Lasting(lastingSteps);
    this.atChance = new Lasting(lastingSteps);
    this.specialShared = new Lasting(lastingSteps, 'probe snapshots');
  }

  get raisedRules(): AlarmRule[] {
    return [...this.raised];
  }

  /**
   * Feeds a run's earlier reports and probe snapshots (a resumed run's, up to its checkpoint) in the order the run made
   * them, each probe snapshot after the report of the step it follows; returns the alarms they raise. A resumed run
   * watched this way raises what an uninterrupted one would: no rule twice, lasting evidence carried over.
   */
  replay(reports: readonly StepReport[], snapshots: readonly ProbeSnapshot[]): Alarm[] {
    const history = [
      ...reports.map((report) => ({ at: 2 * (report.step + 1), feed: () => this.onReport(report) })),
      ...snapshots.map((snapshot) => ({ at: 2 * snapshot.step + 1, feed: () => this.onProbes(snapshot) })),
    ];
    return history.sort((a, b) => a.at - b.at).flatMap(({ feed }) => feed());
  }

  onReport(report: StepReport): Alarm[] {
    const found: Alarm[] = [];
    const { vocabSize: V, totalSteps } = this.context;
    const T = ALARM_THRESHOLDS;
    const step = report.step + 1;
    const first = (this.firstReport ??= report);
    const levels = rankLevels(this.context, report);
    const active = `mean active dimensions: queries ${report.activeQueries.toFixed(1)}, documents ${report.activeDocuments.toFixed(1)} of ${V}`;

    const emptiest = Math.min(report.activeQueries, report.activeDocuments);
    if (emptiest < T.collapseBelow) {
      found.push({
        rule: 'collapse',
        severity: 'alarm',
        step,
        title: 'Vectors are emptying (collapse)',
        evidence: `At step ${step}, ${active} (they started at ${first.activeQueries.toFixed(1)} and ${first.activeDocuments.toFixed(1)}).`,
        advice: COLLAPSE_ADVICE,
        ranges: `Collapse: fewer than ${T.collapseBelow} active dimension per vector on average. ${HEALTHY}`,
      });
    }

    const densest = Math.max(report.activeQueries, report.activeDocuments);
    if (densest >= T.denseShare * V && report.step + 1 >= T.afterRampShare * totalSteps) {
      found.push({
        rule: 'densification',
        severity: 'alarm',
        step,
        title: 'Vectors are dense (most of the vocabulary is active)',
        evidence:
          `At step ${step}, ${active} (${((100 * densest) / V).toFixed(0)}% of the vocabulary), with the FLOPS weights at ` +
          `lambda_q ${report.lambdaQueries.toExponential(2)} and lambda_d ${report.lambdaDocuments.toExponential(2)}.`,
        advice:
          'This is the large-norm head failure the paper fixes: divide the head by a larger k (about the mean row norm, so ' +
          'that the divided rows have norms near 0.2-1.3; the head-norm view suggests values). If k is already large, raise ' +
          'lambda_q and lambda_d, or lower the learning rate.',
        ranges: `Dense: at least ${100 * T.denseShare}% of the vocabulary active once the FLOPS ramp is complete (${(100 * T.afterRampShare).toFixed(0)}% of the run). ${HEALTHY} The k = 1 failure on large-norm heads leaves all 30k-50k dimensions active (the paper; sentence-transformers issue #3431).`,
      });
    }

    const exploding = levels.exploding;
    if (report === first && exploding && exploding.value > 0 && report.rank >= T.explodingFactor * exploding.value) {
      found.push({
        rule: 'exploding-scores',
        severity: 'warning',
        step,
        title: 'Scores are huge from the start',
        evidence: `The ranking loss at step ${step} is ${report.rank.toPrecision(4)}, ${(report.rank / exploding.value).toFixed(0)} times ${exploding.name} = ${exploding.value.toPrecision(4)} (${exploding.meaning}).`,
        advice:
          'Dot products in the hundreds or more mean long head rows: divide the head by a larger k before training (the ' +
          "paper's Figure 4 shows such losses, 1e3-1e4, for ModernBERT, Ettin and RoBERTa at k = 1).",
        ranges: `A starting ranking loss of at least ${T.explodingFactor} x ${exploding.name}. A head with row norms near 1 starts within a few times it.`,
      });
    }

    const regulariser = report.lambdaQueries * report.flopsQueries + report.lambdaDocuments * report.flopsDocuments;
    if (this.flopsHeavy.update(report.total > 0 && regulariser > T.flopsShare * report.total, step)) {
      found.push({
        rule: 'flops-dominates',
        severity: 'warning',
        step,
        title: 'The FLOPS term dominates the loss',
        evidence:
          `At step ${step}, lambda-weighted FLOPS ${regulariser.toPrecision(4)} (queries ${(report.lambdaQueries * report.flopsQueries).toPrecision(3)}, ` +
          `documents ${(report.lambdaDocuments * report.flopsDocuments).toPrecision(3)}) against a ranking loss of ${report.rank.toPrecision(4)}, ` +
          `${this.flopsHeavy.since(step)}.`,
        advice:
          'The model is rewarded more for emptying its vectors than for ranking: lower lambda_q and lambda_d (the calibrator ' +
          'and the lambda converter help), or, when the vectors are also dense, divide the head by a larger k.',
        ranges: `Regulariser above ${100 * T.flopsShare}% of the total loss at every report ${this.flopsHeavy.rule}. In healthy runs the ranking loss is most of the loss.`,
      });
    }

    const warm = report.step + 1 >= 0.1 * totalSteps;
    const stall = levels.stall;
    const stalled = stall !== null && stall.value > 0 && Math.abs(report.rank - stall.value) <= T.chanceTolerance * stall.value;
    if (this.atChance.update(warm && stalled, step) && stall) {
      found.push({
        rule: 'chance-loss',
        severity: 'alarm',
        step,
        title: stall.title,
        evidence: `At step ${step} the ${stall.lossName} is ${report.rank.toFixed(4)}; ${stall.name} = ${stall.value.toFixed(4)} ${stall.meaning}, ${this.atChance.since(step)}; ${active}.`,
        advice: stall.advice,
        ranges: `Within ${100 * T.chanceTolerance}% of ${stall.name} at every report ${this.atChance.rule}, after the first 10% of steps.`,
      });
    }
    return this.keepNew(found);
  }

  onProbes(snapshot: ProbeSnapshot): Alarm[] {
    const found: Alarm[] = [];
    const step = snapshot.step;
    const T = ALARM_THRESHOLDS;
    const shared = this.sharedSpecialTerms(snapshot);
    const hits = snapshot.probes
      .map((probe) => ({ probe, special: probe.terms.slice(0, T.specialTopTerms).filter((t) => shared.has(t.term)) }))
      .filter((p) => p.special.length > 0);
    if (this.specialShared.update(shared.size > 0 && step >= T.afterRampShare * this.context.totalSteps, step)) {
      const listed = hits
        .slice(0, 3)
        .map(
          ({ probe, special }) =>
            `"${shorten(probe.text)}" (${probe.role}): ${special.map((t) => `${t.term} ${t.weight.toFixed(2)}`).join(', ')}`,
        )
        .join('; ');
      found.push({
        rule: 'special-terms',
        severity: 'warning',
        step,
        title: 'Special tokens among the top terms',
        evidence: `At step ${step}, ${hits.length} of ${snapshot.probes.length} probes share special or unused tokens in their top ${T.specialTopTerms} (${this.specialShared.since(step)}): ${listed}.`,
        advice:
          'These pieces carry no meaning: they match every text and spend postings in an index. They often fade once the ' +
          'FLOPS ramp is in; if they stay, raise lambda_d a little or train longer, and check that the tokenizer marks them as special.',
        ranges: `The same special token of the tokenizer or [unusedN] piece among the top ${T.specialTopTerms} terms of at least ${100 * T.specialProbeShare}% of the probes, in every snapshot ${this.specialShared.rule}, once the FLOPS ramp is complete. One probe's top terms catch an untrained [unusedN] row of a random head now and then, as they catch any row; that alone is not the failure.`,
      });
    }
    const empty = snapshot.probes.filter((p) => p.activeDims === 0);
    if (empty.length > 0 && step > 0) {
      found.push({
        rule: 'collapse',
        severity: 'alarm',
        step,
        title: 'Vectors are emptying (collapse)',
        evidence: `At step ${step}, ${empty.length} of ${snapshot.probes.length} probe texts encode to an empty vector: ${empty
          .slice(0, 3)
          .map((p) => `"${shorten(p.text)}"`)
          .join(', ')}.`,
        advice: COLLAPSE_ADVICE,
        ranges: `Collapse: a probe text with no active dimension. ${HEALTHY}`,
      });
    }
    return this.keepNew(found);
  }

  /** Special pieces among the top terms of at least the rule's share of the probes (one probe when there is only one). */
  private sharedSpecialTerms(snapshot: ProbeSnapshot): Set<string> {
    const T = ALARM_THRESHOLDS;
    const probesWith = new Map<string, number>();
    for (const probe of snapshot.probes) {
      const special = new Set(
        probe.terms
          .slice(0, T.specialTopTerms)
          .map((t) => t.term)
          .filter((term) => isSpecialTerm(term, this.specialTerms)),
      );
      for (const term of special) probesWith.set(term, (probesWith.get(term) ?? 0) + 1);
    }
    const needed = Math.max(1, Math.ceil(T.specialProbeShare * snapshot.probes.length));
    return new Set([...probesWith].filter(([, count]) => count >= needed).map(([term]) => term));
  }

  private keepNew(found: Alarm[]): Alarm[] {
    const fresh = found.filter((alarm) => !this.raised.has(alarm.rule));
    for (const alarm of fresh) this.raised.add(alarm.rule);
    return fresh;
  }
}

/** A level the ranking loss is compared with: its value, how the alarm names it, and what it means. */
interface RankLevel {
  value: number;
  name: string;
  meaning: string;
}

/** The stall rule of a loss: its level, the alarm's title, the loss's name in the evidence, and the advice. */
interface StallLevel extends RankLevel {
  title: string;
  lossName: string;
  advice: string;
}

const PLURAL = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * What a report's ranking loss is compared with, per loss: the level a stalled run sits at (null when the report
 * cannot tell it: a distillation report without its batches' level, from an older record), and the level a huge
 * start is measured against.
 */
function rankLevels(context: AlarmContext, report: StepReport): { stall: StallLevel | null; exploding: RankLevel | null } {
  const { batchSize: B, loss = 'contrastive', negatives: n = 1, temperature: T = 1 } = context;
  if (loss === 'contrastive') {
    const value = contrastiveChance(B, n);
    const N = contrastiveCandidates(B, n);
    const level = { value, name: `log((1+n)B) = log(${N})` };
    return {
      stall: {
        ...level,
        meaning: `for B = ${B} queries and n = ${PLURAL(n, 'negative')} (each query against all ${N} documents of the batch, every candidate scored alike)`,
        title: 'The ranking loss is stuck at chance, log((1+n)B)',
        lossName: 'ranking loss',
        advice:
          'The model cannot tell positives from negatives. With empty vectors, lower the lambdas or k (see collapse); with ' +
          'non-empty ones, raise the learning rate or check the triplets (query, positive, negative columns in that order).',
      },
      exploding: { ...level, meaning: 'what equal scores give' },
    };
  }
  const equal = report.rankAtEqualScores;
  const CHECK_LABELS =
    'check the teacher labels (raw cross-encoder logits, in the order of the negative columns) and that they belong to these rows.';
  if (loss === 'marginmse') {
    const level = equal === undefined ? null : { value: equal, name: "the batch's mean squared teacher margin" };
    return {
      stall: level && {
        ...level,
        meaning: '(the MarginMSE of student margins that are all 0)',
        title: "The student's margins are not moving (MarginMSE stuck where zero margins put it)",
        lossName: 'MarginMSE loss',
        advice:
          "The student scores each query's positive and negatives alike. With empty vectors, lower the lambdas or k (see " +
          'collapse); with non-empty ones, raise the learning rate, or ' +
          CHECK_LABELS,
      },
      exploding: level && { ...level, meaning: 'what equal scores give: every student margin 0' },
    };
  }
  return {
    stall:
      equal === undefined
        ? null
        : {
            value: equal,
            name: 'T²·KL(teacher ‖ uniform) of the batch',
            meaning: `(the KL loss of equal student scores over each query's ${1 + n} candidates, T = ${T})`,
            title: "The student's scores are equal (KL stuck where equal scores put it)",
            lossName: 'KL loss',
            advice:
              "The student gives each query's positive and negatives the same score. With empty vectors, lower the lambdas " +
              'or k (see collapse); with non-empty ones, raise the learning rate, or ' +
              CHECK_LABELS,
          },
    exploding: {
      value: klCeiling(n, T),
      name: 'T²·log(1 + n)',
      meaning: `the most equal scores can give, at T = ${T} and n = ${n}`,
    },
  };
}

function shorten(text: string, max = 40): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Evidence that must last: it held at every report (or snapshot) from one step on, for a span of steps. */
class Lasting {
  private from: number | null = null;
  private reports = 0;

  constructor(
    private readonly minSteps: number,
    private readonly unit = 'reports',
  ) {}

  /** Records whether the evidence holds at this step (steps taken); true once it has held long enough. */
  update(holds: boolean, step: number): boolean {
    if (!holds) {
      this.from = null;
      this.reports = 0;
      return false;
    }
    this.from ??= step;
    this.reports += 1;
    return this.reports >= ALARM_THRESHOLDS.lastingReports && step - this.from >= this.minSteps;
  }

  /** How long it has held, for the evidence. */
  since(step: number): string {
    return `held since step ${this.from ?? step} (${this.reports} ${this.unit})`;
  }

  /** The lasting condition, for the ranges. */
  get rule(): string {
    return `for at least ${this.minSteps} steps (${100 * ALARM_THRESHOLDS.lastingShare}% of the run, at most ${ALARM_THRESHOLDS.lastingMaxSteps}) and ${ALARM_THRESHOLDS.lastingReports} ${this.unit}`;
  }
}

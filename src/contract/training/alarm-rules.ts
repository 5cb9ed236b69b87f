// Rules that watch a training run's reports and probes and raise alarms (collapse, densification, special tokens
// among the top terms, a FLOPS term that dominates, a ranking loss stuck where equal scores put it: chance for the
// contrastive loss, zero student margins for MarginMSE, equal student scores for KL), each naming the step, the
// evidence and what to change, with the healthy ranges it uses and their source. Pure data and functions: the same
// rules for the page, the CLI and recorded traces; the stateful watcher that applies them to a run is
// src/app/training/alarm-watcher.ts.
import type { StepReport } from './training-report.ts';
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

/** Tokens that are special to the tokenizer, or the numbered reserved pieces of a vocabulary that stand for no word (BERT's, bracketed or angled). */
export function isSpecialTerm(term: string, specialTerms: ReadonlySet<string>): boolean {
  return specialTerms.has(term) || /^[[<]unused\d+[\]>]$/.test(term);
}

/** A level the ranking loss is compared with: its value, how the alarm names it, and what it means. */
export interface RankLevel {
  value: number;
  name: string;
  meaning: string;
}

/** The stall rule of a loss: its level, the alarm's title, the loss's name in the evidence, and the advice. */
export interface StallLevel extends RankLevel {
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
export function rankLevels(context: AlarmContext, report: StepReport): { stall: StallLevel | null; exploding: RankLevel | null } {
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

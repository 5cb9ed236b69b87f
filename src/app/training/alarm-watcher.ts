// Watches one training run's reports and probe snapshots and raises the alarms of src/contract/training/alarm-rules.ts (the
// rules, thresholds and healthy ranges, pure data there): each rule once per run, lasting evidence carried over a
// resume. Stateful, so it lives here beside the run it watches, not in the contract.
import {
  ALARM_THRESHOLDS,
  HEALTHY_ACTIVE_DIMS,
  isSpecialTerm,
  rankLevels,
  type Alarm,
  type AlarmContext,
  type AlarmRule,
} from '../../contract/training/alarm-rules.ts';
import type { ProbeSnapshot } from '../../contract/training/probes.ts';
import type { StepReport } from '../../contract/training/training-report.ts';

const HEALTHY = `Healthy: about ${HEALTHY_ACTIVE_DIMS.queries.join('-')} active dimensions per query and ${HEALTHY_ACTIVE_DIMS.documents.join('-')} per document (${HEALTHY_ACTIVE_DIMS.source}).`;

/** What to change when vectors empty, from the batch or from the probes. */
const COLLAPSE_ADVICE =
  'The FLOPS term has pushed every weight to zero: lower lambda_q and lambda_d (the calibrator finds values for a target), ' +
  'or a smaller k if the head was shrunk a lot (a head divided too much starts near zero and cannot recover); ' +
  'a longer FLOPS ramp also helps.';

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

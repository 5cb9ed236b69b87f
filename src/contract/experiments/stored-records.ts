// Run records and sweep plans as read back from storage (run.json and sweep.json in Node, IndexedDB in the page) are
// checked field by field before use, so that an emptied, truncated or edited record is refused naming its field.
import { describeJsonValue } from '../../util/json-value.ts';
import type { RunRecord } from './runs.ts';
import type { SweepPlan } from './sweep-plan.ts';

/** The `format` a training checkpoint's state file names (train/training-checkpoint.ts writes it; a model reader tells a checkpoint folder by it). */
export const CHECKPOINT_FORMAT = 'splade-lab-checkpoint';

/** A stored record that is not the shape this version writes: the message names where, the field and what to do. */
export class StoredRecordError extends Error {
  override name = 'StoredRecordError';
}

type Kind = 'string' | 'number' | 'object' | 'array';

/** What a field must be: a kind, or null/absent allowed beside it. */
interface Rule {
  kind: Kind;
  nullable?: boolean;
  optional?: boolean;
}

const RUN_STATUSES = ['running', 'finished', 'paused', 'cancelled', 'failed'];

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isFinite(value) ? 'a number' : describeJsonValue(value);
  return typeof value === 'object' ? 'an object' : typeof value === 'string' ? 'a string' : typeof value;
}

function matches(value: unknown, kind: Kind): boolean {
  if (kind === 'array') return Array.isArray(value);
  if (kind === 'object') return typeof value === 'object' && value !== null && !Array.isArray(value);
  if (kind === 'number') return typeof value === 'number' && Number.isFinite(value);
  return typeof value === 'string';
}

/** Checks `fields` (path -> rule) of `parent`, whose own path is `at`; returns the first problem, or null. */
function problem(parent: unknown, at: string, fields: Record<string, Rule | Kind>): string | null {
  for (const [name, spec] of Object.entries(fields)) {
    const rule: Rule = typeof spec === 'string' ? { kind: spec } : spec;
    const value = (parent as Record<string, unknown>)[name];
    if ((value === undefined && rule.optional) || (value === null && rule.nullable)) continue;
    if (!matches(value, rule.kind)) {
      const expected = `${rule.kind === 'array' || rule.kind === 'object' ? 'an' : 'a'} ${rule.kind}${rule.nullable ? ' or null' : ''}`;
      return `"${at}${name}" is ${value === undefined ? 'missing' : kindOf(value)}, expected ${expected}`;
    }
  }
  return null;
}

/** The first problem of every element of the array at `path`. */
function eachProblem(items: unknown[], path: string, fields: Record<string, Rule | Kind>): string | null {
  for (let i = 0; i < items.length; i++) {
    const at = `${path}[${i}]`;
    const found = matches(items[i], 'object')
      ? problem(items[i], `${at}.`, fields)
      : `"${at}" is ${kindOf(items[i])}, expected an object`;
    if (found) return found;
  }
  return null;
}

const REPORT_NUMBERS = [
  'step',
  'total',
  'rank',
  'flopsQueries',
  'flopsDocuments',
  'lambdaQueries',
  'lambdaDocuments',
  'activeQueries',
  'activeDocuments',
  'msPerStep',
] as const;

function runRecordProblem(value: unknown): string | null {
  if (!matches(value, 'object')) return `the record is ${kindOf(value)}, expected an object`;
  const record = value as Record<string, unknown>;
  const top = problem(record, '', {
    id: 'string',
    sweep: { kind: 'object', nullable: true },
    model: 'object',
    k: 'number',
    seed: 'number',
    recipe: 'object',
    data: 'object',
    status: 'string',
    message: 'string',
    createdAt: 'string',
    updatedAt: 'string',
    reports: 'array',
    step: 'number',
    trainingMs: 'number',
    checkpoint: { kind: 'object', nullable: true },
    savedModel: { kind: 'object', nullable: true },
    evaluations: 'array',
    alarms: { kind: 'array', optional: true },
    probes: { kind: 'array', optional: true },
  });
  if (top) return top;
  if (!RUN_STATUSES.includes(record.status as string))
    return `"status" is ${JSON.stringify(record.status)}, expected one of ${RUN_STATUSES.join(', ')}`;
  return (
    problem(record.model, 'model.', {
      name: 'string',
      key: 'string',
      architecture: 'string',
      meanRowNorm: { kind: 'number', nullable: true, optional: true },
    }) ??
    problem(record.recipe, 'recipe.', { batchSize: 'number', lambdaQueries: 'number', lambdaDocuments: 'number' }) ??
    evaluationsProblem(record.evaluations as unknown[]) ??
    problem(record.data, 'data.', { name: 'string', triplets: 'number', crc32: 'number' }) ??
    (record.sweep ? problem(record.sweep, 'sweep.', { id: 'string', index: 'number', total: 'number' }) : null) ??
    (record.checkpoint ? problem(record.checkpoint, 'checkpoint.', { name: 'string', step: 'number' }) : null) ??
    (record.savedModel ? problem(record.savedModel, 'savedModel.', { where: 'string', files: 'array' }) : null) ??
    eachProblem(record.reports as unknown[], 'reports', Object.fromEntries(REPORT_NUMBERS.map((name) => [name, 'number']))) ??
    eachProblem((record.alarms ?? []) as unknown[], 'alarms', { rule: 'string', step: 'number', title: 'string' }) ??
    eachProblem((record.probes ?? []) as unknown[], 'probes', { step: 'number', probes: 'array', scores: 'array' }) ??
    probeViewsProblem((record.probes ?? []) as { probes: unknown[] }[])
  );
}

/** The first problem of the evaluations (what the runs table and the compare view read of each). */
function evaluationsProblem(evaluations: unknown[]): string | null {
  const found = eachProblem(evaluations, 'evaluations', { set: 'object', splade: 'object' });
  if (found) return found;
  for (const [i, evaluation] of (evaluations as { set: unknown; splade: unknown }[]).entries()) {
    const inner =
      problem(evaluation.set, `evaluations[${i}].set.`, { name: 'string' }) ??
      problem(evaluation.splade, `evaluations[${i}].splade.`, { metrics: 'object', efficiency: 'object' });
    if (inner) return inner;
  }
  return null;
}

/** The first problem of the probe views of every snapshot, and of their top terms (what the alarm rules read). */
function probeViewsProblem(snapshots: { probes: unknown[] }[]): string | null {
  for (const [i, snapshot] of snapshots.entries()) {
    const at = `probes[${i}].probes`;
    const found = eachProblem(snapshot.probes, at, { role: 'string', text: 'string', activeDims: 'number', terms: 'array' });
    if (found) return found;
    for (const [j, view] of (snapshot.probes as { terms: unknown[] }[]).entries()) {
      const term = eachProblem(view.terms, `${at}[${j}].terms`, { term: 'string', weight: 'number' });
      if (term) return term;
    }
  }
  return null;
}

function sweepPlanProblem(value: unknown): string | null {
  if (!matches(value, 'object')) return `the plan is ${kindOf(value)}, expected an object`;
  const plan = value as Record<string, unknown>;
  const found =
    problem(plan, '', {
      id: 'string',
      createdAt: 'string',
      modelKey: 'string',
      data: 'object',
      runs: 'array',
      finished: 'array',
    }) ??
    problem(plan.data, 'data.', { name: 'string', triplets: 'number', crc32: 'number' }) ??
    eachProblem(plan.runs as unknown[], 'runs', {
      k: 'number',
      batchSize: 'number',
      queryLength: 'number',
      documentLength: 'number',
      // the run folders are named by k or by the lambdas: a path there is refused with its field
      lambdaQueries: { kind: 'number', optional: true },
      lambdaDocuments: { kind: 'number', optional: true },
    });
  if (found) return found;
  const runs = (plan.runs as unknown[]).length;
  const bad = (plan.finished as unknown[]).findIndex((i) => !Number.isInteger(i) || (i as number) < 0 || (i as number) >= runs);
  return bad < 0
    ? null
    : `"finished[${bad}]" is ${JSON.stringify((plan.finished as unknown[])[bad])}, expected the index of one of its ${runs} runs`;
}

/** `value` as a run record, or a StoredRecordError: "<where>: <field problem>. <advice>". */
export function checkRunRecord(value: unknown, where: string, advice: string): RunRecord {
  const found = runRecordProblem(value);
  if (found) throw new StoredRecordError(`${where}: ${found}. ${advice}`);
  return value as RunRecord;
}

/** `value` as a sweep plan, or a StoredRecordError: "<where>: <field problem>. <advice>". */
export function checkSweepPlan(value: unknown, where: string, advice: string): SweepPlan {
  const found = sweepPlanProblem(value);
  if (found) throw new StoredRecordError(`${where}: ${found}. ${advice}`);
  return value as SweepPlan;
}

// run.json read back (`runs`, `lambdas --measured`, `train --resume`): a record in the shape splade-lab writes, or an
// error naming the file, the field, what it holds and what to do, never a TypeError from inside a table.
import { describeJsonValue } from '../util/json-value.ts';
import { parseJsonText } from '../util/json-text.ts';
import type { RunRecord } from './runs.ts';

const ADVICE = 'it is not a run record as splade-lab writes it (edited, or cut short): restore it, or leave this run out';

type Check = [field: string, expected: string, ok: (value: unknown) => boolean];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;
const isString = (v: unknown) => typeof v === 'string';

/**
 * The fields the readers of a record use, in the order a message should name the first one that is wrong; "list[]"
 * checks every item of a list (already checked to be one).
 */
const CHECKS: Check[] = [
  ['id', 'a string', isString],
  [
    'status',
    'one of running, finished, paused, cancelled, failed',
    (v) => ['running', 'finished', 'paused', 'cancelled', 'failed'].includes(v as string),
  ],
  ['k', 'a number above 0', (v) => isNumber(v) && v > 0],
  ['seed', 'a number', isNumber],
  ['step', 'a whole number of at least 0', isCount],
  ['trainingMs', 'a number', isNumber],
  ['createdAt', 'a string', isString],
  ['model', 'an object', isObject],
  ['model.name', 'a string', isString],
  ['model.meanRowNorm', 'a number or null', (v) => v === null || isNumber(v)],
  ['recipe', 'an object', isObject],
  ['recipe.batchSize', 'a whole number of at least 1', (v) => isCount(v) && (v as number) >= 1],
  ['recipe.lambdaQueries', 'a number', isNumber],
  ['recipe.lambdaDocuments', 'a number', isNumber],
  ['data', 'an object', isObject],
  ['checkpoint', 'null or {"name", "step"}', (v) => v === null || (isObject(v) && isString(v.name) && isCount(v.step))],
  ['reports', 'a list', Array.isArray],
  ['reports[]', 'a report (an object with a whole-number "step")', (r) => isObject(r) && isCount(r.step)],
  ['evaluations', 'a list', Array.isArray],
  [
    'evaluations[]',
    'an evaluation (an object with "set.name", "splade.metrics" and "splade.efficiency")',
    (e) =>
      isObject(e) &&
      isObject(e.set) &&
      isString(e.set.name) &&
      isObject(e.splade) &&
      isObject(e.splade.metrics) &&
      isObject(e.splade.efficiency),
  ],
];

function fieldOf(record: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (isObject(value) ? value[key] : undefined), record);
}

/** `json` as a run record read from `where`, or an error naming the first field that is not as splade-lab writes it. */
export function checkRunRecord(json: unknown, where: string): RunRecord {
  if (!isObject(json)) throw new Error(`${where} holds ${describeJsonValue(json)}, not a run record; ${ADVICE}`);
  const fail = (field: string, expected: string, value: unknown): never => {
    throw new Error(`${where}: ${field} must be ${expected}, got ${describeJsonValue(value)}; ${ADVICE}`);
  };
  for (const [field, expected, ok] of CHECKS) {
    if (field.endsWith('[]')) {
      const list = fieldOf(json, field.slice(0, -2)) as unknown[];
      const bad = list.findIndex((item) => !ok(item));
      if (bad >= 0) fail(`"${field.slice(0, -2)}"[${bad}]`, expected, list[bad]);
    } else {
      const value = fieldOf(json, field);
      if (!ok(value)) fail(`"${field}"`, expected, value);
    }
  }
  return json as unknown as RunRecord;
}

/** The run record in the text of a run.json read from `where`. */
export function parseRunRecord(text: string, where: string): RunRecord {
  return checkRunRecord(parseJsonText(text, where, ADVICE), where);
}

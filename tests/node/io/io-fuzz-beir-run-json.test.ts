// Seeded fuzzing of two readers issue 33 touched: BEIR JSONL lines (ids as strings or as numbers of any length, nested
// "_id" members, escapes, cut and flipped lines) and run.json (fields deleted or replaced by any JSON value). Each
// case reads back exactly or fails with an Error naming the file; never a TypeError, never a hang.
import { describe, expect, it } from 'vitest';
import { checkRunRecord, StoredRecordError } from '../../../src/contract/experiments/stored-records.ts';
import { evaluatedSets, runTable } from '../../../src/contract/experiments/run-compare.ts';
import { parseBeirJsonl } from '../../../src/io/beir/beir.ts';
import { Random } from '../../../src/util/random.ts';
import { runRecordFixture } from '../../helpers/run-record.ts';

const pick = <T>(random: Random, items: readonly T[]): T => items[random.int(items.length)];

/** A number as a file may write it: long integers, signs, fractions, exponents (1e400 included). */
function numberText(random: Random): string {
  const digits = (n: number) => Array.from({ length: n }, (_, i) => (i === 0 ? 1 + random.int(9) : random.int(10))).join('');
  const whole = random.next() < 0.1 ? '0' : digits(1 + random.int(30));
  const fraction = random.next() < 0.3 ? `.${digits(1 + random.int(5))}` : '';
  const exponent = random.next() < 0.2 ? `${pick(random, ['e', 'E'])}${pick(random, ['', '+', '-'])}${random.int(500)}` : '';
  return `${random.next() < 0.2 ? '-' : ''}${whole}${fraction}${exponent}`;
}

/** A string id with what trips scanners: quotes, backslashes, braces, a "_id" inside it. */
function stringId(random: Random): string {
  return Array.from({ length: 1 + random.int(12) }, () =>
    pick(random, ['a', '"', '\\', '{', '}', '_id', ':', ',', 'é', '7']),
  ).join('');
}

/** Values a damaged file may hold; Infinity is what JSON.parse makes of 1e400. */
const ANY_JSON = [null, true, 0, -1, Infinity, 'x', '', [], [1], {}, { a: 1 }, '\u001b[2J'];

describe('BEIR JSONL lines, fuzzed', () => {
  it('read every id as written, or fail with an Error naming the file (3000 seeded lines)', () => {
    const random = new Random(33);
    const outcomes = { read: 0, refused: 0 };
    for (let c = 0; c < 3000; c++) {
      const numeric = random.next() < 0.6;
      const idText = numeric ? numberText(random) : JSON.stringify(stringId(random));
      const space = () => pick(random, ['', ' ', '\t', '  ']);
      const members = [
        `"_id"${space()}:${space()}${idText}`,
        `"text":${space()}${JSON.stringify(stringId(random))}`,
        ...(random.next() < 0.5 ? [`"meta": {"_id": ${numberText(random)}, "l": ["_id", {"_id": 1}]}`] : []),
        ...(random.next() < 0.3 ? [`"title": ${JSON.stringify(stringId(random))}`] : []),
      ].sort(() => random.next() - 0.5);
      let line = `{${space()}${members.join(`${space()},${space()}`)}${space()}}`;
      const mutated = random.next() < 0.25;
      if (mutated && random.next() < 0.5) line = line.slice(0, random.int(line.length));
      else if (mutated) {
        const at = random.int(line.length);
        line = line.slice(0, at) + pick(random, ['"', '}', ',', ':', '\\', '1', ' ']) + line.slice(at + 1);
      }
      try {
        const { records } = parseBeirJsonl(line, 'fuzz.jsonl');
        if (!mutated) expect(records.map((r) => r.id)).toEqual([numeric ? idText : JSON.parse(idText)]);
        outcomes.read++;
      } catch (error) {
        outcomes.refused++;
        expect(error, line).toBeInstanceOf(Error);
        expect((error as Error).constructor, line).toBe(Error);
        expect((error as Error).message, line).toMatch(/^fuzz\.jsonl:1: /);
      }
    }
    expect(outcomes.read).toBeGreaterThan(2000);
    expect(outcomes.refused).toBeGreaterThan(300);
  });
});

/** Sets `path` (dot-separated) of `record` to `value`, or deletes it when value is undefined. */
function setPath(record: Record<string, any>, path: string[], value: unknown): void {
  let target = record;
  for (const key of path.slice(0, -1)) {
    if (typeof target[key] !== 'object' || target[key] === null) return;
    target = target[key];
  }
  if (value === undefined) delete target[path.at(-1)!];
  else target[path.at(-1)!] = value;
}

const PATHS = [
  'id',
  'status',
  'k',
  'seed',
  'step',
  'trainingMs',
  'createdAt',
  'model',
  'model.name',
  'model.meanRowNorm',
  'recipe',
  'recipe.batchSize',
  'recipe.lambdaQueries',
  'recipe.lambdaDocuments',
  'data',
  'checkpoint',
  'reports',
  'reports.0',
  'reports.0.step',
  'evaluations',
  'evaluations.0',
  'evaluations.0.set',
  'evaluations.0.set.name',
  'evaluations.0.splade',
  'evaluations.0.splade.metrics',
  'evaluations.0.splade.efficiency',
].map((p) => p.split('.'));

describe('run.json, fuzzed', () => {
  it('is a record `runs` can lay out, or an Error naming the file and a field (2000 seeded records)', () => {
    const random = new Random(17);
    const outcomes = { read: 0, refused: 0 };
    for (let c = 0; c < 2000; c++) {
      const report = { step: 0, total: 1, rank: 1, flopsQueries: 0, flopsDocuments: 0, lambdaQueries: 0, lambdaDocuments: 0 };
      const full = { ...report, activeQueries: 1, activeDocuments: 1, msPerStep: 1 };
      const record = runRecordFixture({ reports: [full] }) as Record<string, any>;
      const changes = 1 + random.int(3);
      for (let i = 0; i < changes; i++)
        setPath(record, pick(random, PATHS), random.next() < 0.2 ? undefined : pick(random, ANY_JSON));
      try {
        const read = checkRunRecord(record, 'r/run.json', 'restore it'); // as JSON.parse gives it: 1e400 is Infinity
        const rows = runTable([read, read], evaluatedSets([read])[0] ?? '');
        expect(rows).toHaveLength(2);
        outcomes.read++;
      } catch (error) {
        outcomes.refused++;
        expect((error as Error).constructor, JSON.stringify(record)).toBe(StoredRecordError);
        expect((error as Error).message).toMatch(/^r\/run\.json: ("[\w.[\]]+" is |the record is )/);
      }
    }
    expect(outcomes.read).toBeGreaterThan(50);
    expect(outcomes.refused).toBeGreaterThan(1000);
  });
});

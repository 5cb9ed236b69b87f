// The test tiers' time budgets (docs/testing.md): every measured time in the table within its budget, every tier of
// `npm test` and the whole run budgeted; and, asked for with SPLADE_LAB_CHECK_BUDGETS=1, the last `npm test` run on
// this machine (.artifacts/test-times.json) within them too (by default a slow machine's first run would fail the next).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = process.cwd();

interface Budget {
  budget: number;
  measured: number;
}

/** The rows of the table under docs/testing.md's `<!-- budgets ... -->` marker. */
function budgets(): Map<string, Budget> {
  const text = readFileSync(join(root, 'docs', 'testing.md'), 'utf8');
  const at = text.indexOf('<!-- budgets:');
  expect(at, 'docs/testing.md has its budget table').toBeGreaterThan(0);
  const rows = new Map<string, Budget>();
  for (const line of text.slice(at).split('\n').slice(1)) {
    if (!line.startsWith('|')) {
      if (rows.size > 0) break;
      continue;
    }
    const cells = line.split('|').map((c) => c.trim());
    const [tier, budget, measured] = [cells[1], Number(cells[2]), Number(cells[3])];
    if (!Number.isFinite(budget) || tier === 'tier') continue;
    rows.set(tier, { budget, measured });
  }
  return rows;
}

/** The suites `npm test` runs, read from package.json's test script. */
function testTiers(): string[] {
  const script = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.test as string;
  const each = /run-each\.mjs (.*)$/.exec(script);
  expect(each, 'npm test runs its suites through scripts/run-each.mjs').not.toBeNull();
  return each![1].split(/\s+/).map((name) => name.replace(/^\+/, ''));
}

describe('test time budgets', () => {
  it('budgets every tier of npm test, and each measured time in docs/testing.md is within its budget', () => {
    const table = budgets();
    // each suite, and `npm test`'s suites together (wall clock, as scripts/run-each.mjs records it)
    for (const tier of [...testTiers(), 'npm test']) expect(table.has(tier), `a budget for ${tier}`).toBe(true);
    for (const [tier, { budget, measured }] of table) {
      expect(Number.isFinite(measured), `${tier}: a measured time`).toBe(true);
      expect(measured, `${tier}: measured ${measured} s against its budget of ${budget} s`).toBeLessThanOrEqual(budget);
    }
  });

  // opt-in: the budgets are this project's targets on its own 2-core machine, not a bar for the machine that runs the
  // tests, and a run over them would otherwise fail every later `npm test` of the same clone
  it.runIf(process.env.SPLADE_LAB_CHECK_BUDGETS === '1')('holds the last npm test run on this machine to the budgets', () => {
    const file = join(root, '.artifacts', 'test-times.json');
    expect(existsSync(file), `${file}: run npm test first (it writes the file when it ends)`).toBe(true);
    const { tiers } = JSON.parse(readFileSync(file, 'utf8')) as { tiers: Record<string, { seconds: number; ok: boolean }> };
    const table = budgets();
    const over = Object.entries(tiers)
      .filter(([tier, run]) => run.ok && table.has(tier) && run.seconds > table.get(tier)!.budget)
      .map(([tier, run]) => `${tier}: ${run.seconds} s, budget ${table.get(tier)!.budget} s`);
    expect(over, 'tiers of the last run over their budgets (docs/testing.md)').toEqual([]);
  });
});

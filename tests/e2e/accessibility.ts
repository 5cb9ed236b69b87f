// The e2e tests' accessibility check: runs axe-core (node_modules/axe-core) over a page, open shadow roots included.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults } from 'axe-core';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One rule axe found broken: its id, impact, help text and the elements (CSS paths through shadow roots). */
export interface Violation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Runs axe-core over the whole document (injected once per page) and returns what it found broken. */
export async function axeViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  const results = await page.evaluate(() =>
    (window as unknown as { axe: { run: (context: Document, options: object) => Promise<AxeResults> } }).axe.run(document, {
      resultTypes: ['violations'],
    }),
  );
  return results.violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact ?? 'unknown',
    help: violation.help,
    // a target inside shadow roots is the list of selectors from the document down, one per root
    targets: violation.nodes.map((node) => node.target.map((step) => [step].flat().join(' >>> ')).join(' ')),
  }));
}

/** The violations as lines for an assertion message: "rule (impact): help: target; target". */
export function describeViolations(violations: Violation[]): string {
  return violations.map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.targets.join('; ')}`).join('\n');
}

/**
 * Fails with the violations axe finds in the page as it is now, named by `where` (a state the calling test reached:
 * results shown, a hit opened). The e2e tests call it once their results appear, so that every tab is checked after
 * its results, not only at its first render: Evaluate (evaluation.test.ts: results, index estimate, a search hit
 * opened with its origins; accessibility.test.ts: the built-in set), Runs (runs.test.ts: two runs compared), Audit
 * (audit.test.ts: both reports), Training (accessibility.test.ts: a run on the built-in triplets).
 */
export async function assertNoViolations(page: Page, where: string): Promise<void> {
  const violations = await axeViolations(page);
  if (violations.length) throw new Error(`axe-core found violations ${where}:\n${describeViolations(violations)}`);
}

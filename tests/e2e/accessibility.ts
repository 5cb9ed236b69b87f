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

// `npm run test:data -- [folder]` (default ../shared/data beside the repository): the real-data tier, run over that
// folder; a test file whose data (the dataPath('...') folders it names) is not there is skipped, saying so.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const folder = resolve(process.cwd(), process.argv[2] ?? join(ROOT, '..', 'shared', 'data'));
const tests = readdirSync(join(ROOT, 'tests', 'data'))
  .filter((name) => name.endsWith('.test.ts'))
  .sort();

/** The first lines of a test file's header comment, as one sentence. */
function describeTest(text) {
  const lines = text.split('\n');
  return lines
    .slice(
      0,
      lines.findIndex((line) => !line.startsWith('//')),
    )
    .map((line) => line.replace(/^\/\/\s*/, ''))
    .join(' ');
}

const runnable = [];
for (const name of tests) {
  const text = readFileSync(join(ROOT, 'tests', 'data', name), 'utf8');
  const needs = [...new Set([...text.matchAll(/dataPath\('([^'/]+)/g)].map((m) => m[1]))];
  const missing = needs.filter((sub) => !existsSync(join(folder, sub)));
  if (missing.length === 0) runnable.push(name);
  else
    console.log(
      `[test:data] skipped tests/data/${name}: ${missing.map((sub) => join(folder, sub)).join(', ')} not found. It checks: ${describeTest(text)}`,
    );
}
if (runnable.length === 0) {
  console.log(
    `[test:data] nothing to run over ${folder}: give the folder that holds scifact/ and msmarco-toy/ (npm run test:data -- <folder>)`,
  );
  process.exit(0);
}
console.log(`[test:data] real-data tier over ${folder}: ${runnable.join(', ')}`);
const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const files = runnable.map((name) => `tests/data/${name}`);
const run = spawnSync(process.execPath, [vitest, 'run', '--config', join(ROOT, 'vitest.data.config.ts'), ...files], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, SPLADE_LAB_DATA: folder },
});
process.exit(run.status ?? 1);

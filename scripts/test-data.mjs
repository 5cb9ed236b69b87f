// `npm run test:data -- [folder]` (default ../shared/data beside the repository): the real-data tier, run over that
// folder; when it does not exist, says which checks it skipped and why, and exits 0.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const folder = resolve(process.cwd(), process.argv[2] ?? join(ROOT, '..', 'shared', 'data'));
const tests = readdirSync(join(ROOT, 'tests', 'data')).filter((name) => name.endsWith('.test.ts')).sort();

if (!existsSync(folder)) {
  console.log(`[test:data] ${folder} does not exist: skipped the real-data tier (${tests.length} files), which needs it:`);
  for (const name of tests) {
    const lines = readFileSync(join(ROOT, 'tests', 'data', name), 'utf8').split('\n');
    const header = lines.slice(0, lines.findIndex((line) => !line.startsWith('//'))).map((line) => line.replace(/^\/\/\s*/, '')).join(' ');
    console.log(`[test:data]   tests/data/${name}: ${header}`);
  }
  console.log('[test:data] Give the folder that holds scifact/ and msmarco-toy/: npm run test:data -- <folder>');
  process.exit(0);
}
console.log(`[test:data] real-data tier over ${folder}`);
const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const run = spawnSync(process.execPath, [vitest, 'run', '--config', join(ROOT, 'vitest.data.config.ts')], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, SPLADE_LAB_DATA: folder },
});
process.exit(run.status ?? 1);

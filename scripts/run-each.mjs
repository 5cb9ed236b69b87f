// Runs several npm scripts one after the other, all of them even when one fails, then says how long each took and
// exits non-zero if any failed. `node scripts/run-each.mjs lint:boundaries lint:code`: both reports in one run.
import { spawnSync } from 'node:child_process';

const npmCli = process.env.npm_execpath;
const results = [];
for (const script of process.argv.slice(2)) {
  const start = Date.now();
  const result =
    npmCli && /npm-cli\.js$/.test(npmCli)
      ? spawnSync(process.execPath, [npmCli, 'run', '--silent', script], { stdio: 'inherit' })
      : spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', script], { stdio: 'inherit' });
  results.push({ script, ok: result.status === 0, seconds: (Date.now() - start) / 1000 });
}
if (results.length > 1) {
  console.log(
    `\n${results.map((r) => `  ${r.ok ? 'ok    ' : 'FAILED'} npm run ${r.script} (${r.seconds.toFixed(0)} s)`).join('\n')}`,
  );
}
const failed = results.filter((r) => !r.ok);
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.map((r) => `npm run ${r.script}`).join(', ')}`);
  process.exitCode = 1;
}

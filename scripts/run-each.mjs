// Runs several npm scripts one after the other, all of them even when one fails, then exits non-zero if any failed.
// `node scripts/run-each.mjs lint:boundaries lint:code`: both reports in one run.
import { spawnSync } from 'node:child_process';

const npmCli = process.env.npm_execpath;
const failed = [];
for (const script of process.argv.slice(2)) {
  const result =
    npmCli && /npm-cli\.js$/.test(npmCli)
      ? spawnSync(process.execPath, [npmCli, 'run', '--silent', script], { stdio: 'inherit' })
      : spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', script], { stdio: 'inherit' });
  if (result.status !== 0) failed.push(script);
}
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.map((s) => `npm run ${s}`).join(', ')}`);
  process.exitCode = 1;
}

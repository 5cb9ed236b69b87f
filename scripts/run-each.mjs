// Runs several npm scripts one after the other, all of them even when one fails, then says how long each took and
// exits non-zero if any failed. `node scripts/run-each.mjs lint:boundaries lint:code`: both reports in one run.
// A name written `+name` starts at once and runs beside the scripts after it (the end-to-end tests wait on timers and
// the browser more than on the CPU); its output is printed as one block when it ends, so the logs never interleave.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const npmCli = process.env.npm_execpath;

/** Runs `npm run <script>`; `capture` collects its output instead of passing it through. */
function runScript(script, capture) {
  const start = Date.now();
  const [command, args] =
    npmCli && /npm-cli\.js$/.test(npmCli)
      ? [process.execPath, [npmCli, 'run', '--silent', script]]
      : [process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', script]];
  const child = spawn(command, args, { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  const output = [];
  if (capture) for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('error', (error) => {
      output.push(Buffer.from(`${script} could not start: ${error.message}\n`));
      resolve({ script, ok: false, seconds: (Date.now() - start) / 1000, output });
    });
    child.on('close', (code) => resolve({ script, ok: code === 0, seconds: (Date.now() - start) / 1000, output }));
  });
}

/** Every script's seconds and outcome, merged into .artifacts/test-times.json (docs/testing.md's time budgets). */
function recordTimes(results) {
  const file = join('.artifacts', 'test-times.json');
  let times = Object.create(null);
  try {
    const previous = JSON.parse(readFileSync(file, 'utf8'));
    if (previous && typeof previous.tiers === 'object') times = Object.assign(Object.create(null), previous.tiers);
  } catch {
    // none yet, or unreadable: start afresh
  }
  const at = new Date().toISOString();
  for (const r of results) times[r.script] = { seconds: Math.round(r.seconds), ok: r.ok, at };
  mkdirSync('.artifacts', { recursive: true });
  writeFileSync(`${file}.partial`, JSON.stringify({ tiers: times }, null, 2) + '\n');
  renameSync(`${file}.partial`, file);
}

const started = Date.now();
const beside = [];
const results = [];
for (const name of process.argv.slice(2)) {
  if (name.startsWith('+')) {
    beside.push(runScript(name.slice(1), true));
    continue;
  }
  results.push(await runScript(name, false));
}
for (const result of await Promise.all(beside)) {
  console.log(`\n----- npm run ${result.script} (ran beside the others) -----`);
  process.stdout.write(Buffer.concat(result.output));
  results.push(result);
}
if (results.length > 1) {
  console.log(
    `\n${results.map((r) => `  ${r.ok ? 'ok    ' : 'FAILED'} npm run ${r.script} (${r.seconds.toFixed(0)} s)`).join('\n')}`,
  );
}
const failed = results.filter((r) => !r.ok);
// `npm test` also records its suites' whole wall-clock time (docs/testing.md budgets it as the row "npm test")
const whole =
  process.env.npm_lifecycle_event === 'test'
    ? [{ script: 'npm test', ok: failed.length === 0, seconds: (Date.now() - started) / 1000 }]
    : [];
if (whole.length > 0) console.log(`  all suites together: ${whole[0].seconds.toFixed(0)} s (wall clock, set-up not included)`);
recordTimes([...results, ...whole]);
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.map((r) => `npm run ${r.script}`).join(', ')}`);
  process.exitCode = 1;
}

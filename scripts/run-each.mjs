// Runs several npm scripts one after the other, all of them even when one fails, then says how long each took and
// exits non-zero if any failed. `node scripts/run-each.mjs lint:boundaries lint:code`: both reports in one run.
// A name written `+name` starts at once and runs beside the scripts after it (the end-to-end tests wait on timers and
// the browser more than on the CPU); its output is printed as one block when it ends, so the logs never interleave.
// A failed script's first failing test and its error are repeated as the last lines, where a log's tail shows them.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const npmCli = process.env.npm_execpath;

/** The most output kept of a script passed through, for the digest of a failure (its tail). */
const KEPT_BYTES = 4 << 20;

/** Runs `npm run <script>`; `capture` collects its output instead of passing it through (which also keeps its tail). */
function runScript(script, capture) {
  const start = Date.now();
  const [command, args] =
    npmCli && /npm-cli\.js$/.test(npmCli)
      ? [process.execPath, [npmCli, 'run', '--silent', script]]
      : [process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', script]];
  // piped, a child's reporters would think they write to a file: keep their colours where this runs in a terminal
  const env = process.stdout.isTTY && !process.env.NO_COLOR ? { ...process.env, FORCE_COLOR: '1' } : process.env;
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const output = [];
  let kept = 0;
  for (const [stream, through] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ])
    stream.on('data', (chunk) => {
      if (!capture) through.write(chunk);
      output.push(chunk);
      kept += chunk.length;
      while (!capture && kept > KEPT_BYTES && output.length > 1) kept -= output.shift().length;
    });
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

/** A failed script's first failing test and the error under it, one short line each, from the reporters' words:
 *  vitest's "FAIL", node:test's "not ok", web-test-runner's "❌", tsc's "error TS", eslint's "error". */
function firstFailure(result) {
  const lines = stripVTControlCharacters(Buffer.concat(result.output).toString('utf8'))
    .split(/\r?\n/)
    .map((line) => line.trim());
  const short = (line) => (line.length > 200 ? `${line.slice(0, 199)}…` : line);
  const failure = lines.findIndex((line) => /^(FAIL\b|not ok \d|❌)|\berror TS\d|^\d+:\d+\s+error\b/.test(line));
  if (failure < 0)
    return `  npm run ${result.script}: no failing test named in its output; its last line: ${short(lines.filter(Boolean).at(-1) ?? '(none)')}`;
  const at = lines.slice(failure + 1, failure + 40).findIndex((line) => /^(\w*Error\b|expected\b|error:)/.test(line));
  // node:test writes a long message as a YAML block: `error: |-`, the message on the lines below
  const error = at < 0 ? '' : lines[failure + 1 + at].replace(/\|-?$/, lines[failure + 2 + at] ?? '');
  return `  npm run ${result.script}: ${short(lines[failure])}${error ? `\n    ${short(error)}` : ''}`;
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
  for (const r of failed) console.error(firstFailure(r));
  process.exitCode = 1;
}

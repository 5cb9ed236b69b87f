// Installs what `npm start` or `npm test` needs and is missing; quiet and fast when nothing is.
// `node scripts/setup.mjs start`: npm dependencies. `node scripts/setup.mjs test`: Debian packages, then npm dependencies.
// Plain Node, no dependencies: it runs before node_modules exists.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  missingSystemPackages,
  nodeVersionProblem,
  npmInstallReason,
  realProbes,
  repoFiles,
  systemInstallPlan,
} from './setup-checks.mjs';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

function say(line) {
  console.log(`[setup] ${line}`);
}

function run(command, args, label = [command, ...args].join(' ')) {
  say(`$ ${label}`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.error) throw new Error(`${command} could not start: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`\`${label}\` failed (exit ${result.status ?? result.signal})`);
}

/** The npm that runs us (npm sets npm_execpath), else the one on PATH. */
export function runNpm(args) {
  const npmCli = process.env.npm_execpath;
  const label = ['npm', ...args].join(' ');
  if (npmCli && /npm-cli\.js$/.test(npmCli)) run(process.execPath, [npmCli, ...args], label);
  else run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, label);
}

/** Debian packages the tests need: apt-get when allowed, else a message naming them and the command (then exit 1). */
export function ensureSystemPackages(probes = realProbes()) {
  const missing = missingSystemPackages(probes);
  const plan = systemInstallPlan(missing, probes);
  if (plan.action === 'none') return true;
  if (plan.action === 'tell') {
    console.error(`[setup] ${plan.message.split('\n').join('\n[setup] ')}`);
    return false;
  }
  say(`installing Debian packages: ${missing.join(' ')}`);
  for (const [command, ...args] of plan.commands) run(command, args);
  const still = missingSystemPackages({ ...probes, env: { ...probes.env, SPLADE_LAB_SETUP_PRETEND_MISSING: '' } });
  if (still.length > 0) throw new Error(`still missing after apt-get: ${still.join(' ')}`);
  return true;
}

/** `npm ci` when node_modules is missing or does not match package-lock.json. */
export function ensureNpmDependencies() {
  const reason = npmInstallReason(repoFiles(ROOT));
  if (reason === null) return;
  say(`${reason}: running npm ci`);
  // onnxruntime-node's install script fetches CUDA providers from NuGet, which an offline machine cannot reach: npm 11
  // skips it (package.json's allowScripts denies it); an npm without that policy (npm 10) runs it unless this variable
  // is set. The ONNX parity tests use the CPU build its package carries.
  process.env.ONNXRUNTIME_NODE_INSTALL ??= 'skip';
  runNpm(['ci', '--no-audit', '--no-fund']);
}

function main(mode) {
  if (mode !== 'start' && mode !== 'test') {
    console.error('usage: node scripts/setup.mjs start|test');
    return 2;
  }
  const engines = repoFiles(ROOT).readJson('package.json')?.engines?.node;
  const tooOld = engines ? nodeVersionProblem(process.version, engines) : null;
  if (tooOld) {
    console.error(`[setup] ${tooOld}`);
    return 1;
  }
  try {
    if (mode === 'test' && !ensureSystemPackages()) return 1;
    ensureNpmDependencies();
    return 0;
  } catch (error) {
    console.error(`[setup] ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv[2]);

// The two set-up commands: README, .ci/run and package.json agree; what is missing is decided right; the package is honest.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CHROMIUM,
  missingSystemPackages,
  nodeVersionProblem,
  npmInstallReason,
  SWIFTSHADER_ICD,
  systemInstallPlan,
  type SystemProbes,
} from '../../../scripts/setup-checks.mjs';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

const pkg = JSON.parse(read('package.json')) as {
  engines: { node: string };
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  files: string[];
};

/** The commands (comments dropped) of the first ```sh block of the README's "## Two commands" section. */
function readmeSetupCommands(): string[] {
  const section = read('README.md')
    .split(/^## /m)
    .find((part) => part.startsWith('Two commands'));
  if (!section) throw new Error('README.md has no "## Two commands" section');
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('the Two commands section has no ```sh block');
  return block[1]
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter(Boolean);
}

describe('the README set-up commands', () => {
  it('are exactly npm start and npm test, in that order', () => {
    expect(readmeSetupCommands()).toEqual(['npm start', 'npm test']);
  });

  it('.ci/run runs the README test command, then the real-data tier over the data folder when it is there', () => {
    const lines = read('.ci/run')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    const test = lines.indexOf(readmeSetupCommands()[1]);
    expect(test).toBeGreaterThan(-1);
    const [check, tier, otherwise, skipped, end] = lines.slice(test + 1);
    const folder = /^if \[ -d (\S+) \]; then$/.exec(check)?.[1];
    expect(folder, check).toBeDefined();
    expect([tier, otherwise, end]).toEqual([`npm run test:data -- ${folder}`, 'else', 'fi']);
    expect(skipped).toContain('the real-data tier is skipped');
  });

  it('npm start runs the start script, which installs, generates the demo and serves', () => {
    expect(pkg.scripts.start).toBe('node scripts/start.mjs');
    const start = read('scripts/start.mjs');
    expect(start).toContain('ensureNpmDependencies()');
    expect(start).toContain("'demo-backbone'");
    expect(pkg.scripts['demo-backbone']).toBeDefined();
  });

  it('npm test installs first, then runs typecheck, lint and every suite, each even when one before it failed (the kernels again in the portability mode; the end-to-end tests beside the others)', () => {
    const steps = pkg.scripts.test.split('&&').map((step) => step.trim());
    expect(steps[0]).toBe('node scripts/setup.mjs test');
    expect(steps.slice(1)).toEqual(['node scripts/run-each.mjs +test:e2e typecheck lint test:node test:portable test:browser']);
    expect(pkg.scripts['test:node']).toBe('vitest run');
  });

  it('run-each runs every script even after a failure, a +script beside the others with its output in one block, fails when any failed and names each failure last', () => {
    const dir = mkdtempSync(join(tmpdir(), 'run-each-'));
    const say = (text: string, code = 0) => `node -e "console.log('${text}'); process.exit(${code})"`;
    const slowly = `node -e "setTimeout(() => { console.log('beside done'); process.exit(3) }, 600)"`;
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        scripts: {
          beside: slowly,
          first: `node -e "console.log('first ran'); console.log(' FAIL  a.test.ts > adds'); console.error('AssertionError: expected 2 to be 3'); process.exit(1)"`,
          second: say('second ran'),
        },
      }),
    );
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts', 'run-each.mjs'), '+beside', 'first', 'second'], {
      cwd: dir,
      encoding: 'utf8',
    });
    rmSync(dir, { recursive: true, force: true });
    const out = result.stdout;
    expect(result.status).toBe(1);
    const order = ['first ran', 'second ran', 'ran beside the others', 'beside done'].map((text) => out.indexOf(text));
    expect(
      order.every((at) => at >= 0),
      out,
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(out).toMatch(/FAILED npm run first/);
    expect(out).toMatch(/ok {5}npm run second/);
    expect(out).toMatch(/FAILED npm run beside/);
    // the log's last lines name each failure: the first failing test and its error, or that none was named
    expect(result.stderr.trim().split('\n').slice(-4)).toEqual([
      'failed: npm run first, npm run beside',
      '  npm run first: FAIL  a.test.ts > adds',
      '    AssertionError: expected 2 to be 3',
      '  npm run beside: no failing test named in its output; its last line: beside done',
    ]);
  });
});

describe('the supported Node', () => {
  const range = pkg.engines.node;

  it('is the range every installed package supports: vite, vitest and eslint set its floor', () => {
    expect(range).toBe('^20.19.0 || ^22.13.0 || >=24');
    expect(nodeVersionProblem(process.version, range), 'the Node running the tests').toBeNull();
  });

  it('a Node outside it is named, with the range, before anything is installed', () => {
    for (const ok of ['v20.19.0', 'v20.20.2', 'v22.13.1', 'v24.0.0', 'v25.2.1'])
      expect(nodeVersionProblem(ok, range), ok).toBeNull();
    for (const old of ['v18.20.4', 'v20.18.3', 'v21.7.0', 'v22.12.0', 'v23.11.0']) {
      expect(nodeVersionProblem(old, range), old).toMatch(
        new RegExp(`needs Node .*; this is Node ${old.slice(1).replaceAll('.', '\\.')}\\.`),
      );
    }
    expect(() => nodeVersionProblem('v20.0.0', '~20.1')).toThrow(/cannot read "~20.1"/);
  });
});

function probes(over: Partial<SystemProbes> & { present?: string[]; env?: Record<string, string> } = {}): SystemProbes {
  const present = new Set(
    over.present ?? [
      DEFAULT_CHROMIUM,
      SWIFTSHADER_ICD,
      '/usr/lib/x86_64-linux-gnu/libvulkan.so.1',
      '/usr/share/fonts/truetype/liberation',
    ],
  );
  return {
    env: {},
    platform: 'linux',
    exists: (path) => present.has(path),
    installed: () => null,
    isRoot: () => true,
    hasAptGet: () => true,
    hasPasswordlessSudo: () => false,
    ...over,
  };
}

describe('missing Debian packages', () => {
  it('nothing is missing on a machine that has them all: no action', () => {
    const p = probes();
    expect(missingSystemPackages(p)).toEqual([]);
    expect(systemInstallPlan([], p)).toEqual({ action: 'none' });
  });

  it('each package is missing when its files are (dpkg absent)', () => {
    expect(missingSystemPackages(probes({ present: [] }))).toEqual(['chromium', 'libvulkan1', 'fonts-liberation']);
    expect(missingSystemPackages(probes({ present: [DEFAULT_CHROMIUM] }))).toContain('chromium'); // no SwiftShader ICD
  });

  it('dpkg saying installed is enough for libvulkan1 and fonts-liberation', () => {
    const p = probes({ present: [DEFAULT_CHROMIUM, SWIFTSHADER_ICD], installed: () => true });
    expect(missingSystemPackages(p)).toEqual([]);
  });

  it('CHROMIUM_PATH names the browser to look for', () => {
    const p = probes({
      present: ['/opt/chrome/chrome', SWIFTSHADER_ICD],
      installed: () => true,
      env: { CHROMIUM_PATH: '/opt/chrome/chrome' },
    });
    expect(missingSystemPackages(p)).toEqual([]);
  });

  it('SPLADE_LAB_SETUP_PRETEND_MISSING reports a present package as missing', () => {
    expect(missingSystemPackages(probes({ env: { SPLADE_LAB_SETUP_PRETEND_MISSING: 'chromium' } }))).toEqual(['chromium']);
  });

  it('as root: apt-get update, then apt-get install of just the missing packages', () => {
    const plan = systemInstallPlan(['chromium', 'libvulkan1'], probes());
    expect(plan).toEqual({
      action: 'install',
      commands: [
        ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'update', '-qq'],
        [
          'env',
          'DEBIAN_FRONTEND=noninteractive',
          'apt-get',
          'install',
          '-y',
          '-qq',
          '--no-install-recommends',
          'chromium',
          'libvulkan1',
        ],
      ],
    });
  });

  it('not root but passwordless sudo: the same through sudo -n', () => {
    const plan = systemInstallPlan(['chromium'], probes({ isRoot: () => false, hasPasswordlessSudo: () => true }));
    expect(plan.action).toBe('install');
    if (plan.action === 'install') for (const command of plan.commands) expect(command.slice(0, 2)).toEqual(['sudo', '-n']);
  });

  it('not root and no sudo: a message naming the packages and the command to run', () => {
    const plan = systemInstallPlan(['chromium', 'fonts-liberation'], probes({ isRoot: () => false }));
    expect(plan.action).toBe('tell');
    if (plan.action !== 'tell') return;
    expect(plan.message).toContain('chromium: headless browser');
    expect(plan.message).toContain('fonts-liberation:');
    expect(plan.message).toContain('sudo apt-get install -y --no-install-recommends chromium fonts-liberation');
  });

  it('no apt-get, or not Linux: a message saying what to install by hand', () => {
    for (const p of [probes({ hasAptGet: () => false }), probes({ platform: 'darwin' })]) {
      const plan = systemInstallPlan(['chromium'], p);
      expect(plan.action).toBe('tell');
      if (plan.action === 'tell') expect(plan.message).toContain('CHROMIUM_PATH');
    }
  });
});

describe('npm dependencies: when npm ci must run', () => {
  const manifest = { dependencies: { a: '1.0.0' }, devDependencies: { b: '2.0.0' } };
  const lock = {
    packages: {
      '': { ...manifest },
      'node_modules/a': { version: '1.0.0' },
      'node_modules/b': { version: '2.0.0', dev: true },
      'node_modules/@esbuild/darwin-arm64': { version: '0.1.0', optional: true, dev: true },
    },
  };
  const installedOk = { packages: { 'node_modules/a': { version: '1.0.0' }, 'node_modules/b': { version: '2.0.0' } } };
  const files = (installed: unknown, m: unknown = manifest) => ({
    readJson: (path: string) =>
      ({ 'package.json': m, 'package-lock.json': lock, 'node_modules/.package-lock.json': installed })[path] ?? null,
  });

  it('no node_modules: install', () => {
    expect(npmInstallReason(files(null))).toBe('node_modules is not installed');
  });

  it("the installed tree matches the lock file (another platform's optional binary absent): nothing to do", () => {
    expect(npmInstallReason(files(installedOk))).toBeNull();
  });

  it('a version changed, a package is missing or one is extraneous: install, saying which', () => {
    const changed = { packages: { ...installedOk.packages, 'node_modules/b': { version: '1.9.0' } } };
    expect(npmInstallReason(files(changed))).toMatch(/b 1\.9\.0 -> 2\.0\.0/);
    expect(npmInstallReason(files({ packages: { 'node_modules/a': { version: '1.0.0' } } }))).toMatch(/b missing/);
    const extra = { packages: { ...installedOk.packages, 'node_modules/c': { version: '1.0.0' } } };
    expect(npmInstallReason(files(extra))).toMatch(/c no longer in the lock file/);
  });

  it('package.json and package-lock.json disagree: an error that says to run npm install', () => {
    const edited = { ...manifest, dependencies: { a: '1.1.0' } };
    expect(() => npmInstallReason(files(installedOk, edited))).toThrow(/disagree about a: run `npm install`/);
  });
});

/** Package names imported (statically or dynamically, types included) by the .ts/.mjs files under `dir`. */
function importedPackages(dir: string): Set<string> {
  const names = new Set<string>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mts|mjs)$/.test(entry.name)) {
        for (const match of read(path).matchAll(
          /\b(?:from|import)\s*\(?\s*'((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(?:\/[\w.-]+)*|node:[\w/]+)'/g,
        )) {
          if (match[1].startsWith('node:')) continue;
          const parts = match[1].split('/');
          names.add(match[1].startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
        }
      }
    }
  };
  walk(dir);
  return names;
}

describe('package honesty', () => {
  it('everything src/ and bin/ import is a runtime dependency (webgpu and tsx included)', () => {
    const imported = new Set([...importedPackages('src'), ...importedPackages('bin')]);
    expect(imported).toContain('webgpu');
    expect(imported).toContain('tsx');
    for (const name of imported) expect(pkg.dependencies, `${name} is imported by src/ or bin/`).toHaveProperty([name]);
  });

  it('everything the tests and scripts import is declared', () => {
    const declared = { ...pkg.dependencies, ...pkg.devDependencies };
    expect([...importedPackages('tests')]).toEqual(
      expect.arrayContaining(['vitest', 'playwright-core', '@web/test-runner-commands']),
    );
    for (const dir of ['tests', 'scripts']) {
      for (const name of importedPackages(dir)) expect(declared, `${name} is imported by ${dir}/`).toHaveProperty([name]);
    }
  });

  it('npm pack holds the CLI, its TypeScript sources and every shader, and no tests', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
    const files = new Set((JSON.parse(out) as { files: { path: string }[] }[])[0].files.map((file) => file.path));
    for (const path of ['package.json', 'bin/splade-lab.mjs', 'bin/register-hooks.mjs', 'bin/raw-hooks.mjs', 'src/cli/main.ts']) {
      expect(files).toContain(path);
    }
    for (const shader of readdirSync(join(ROOT, 'shaders')).filter((name) => name.endsWith('.wgsl')))
      expect(files).toContain(`shaders/${shader}`);
    expect([...files].filter((path) => path.startsWith('tests/'))).toEqual([]);
  }, 60_000);
});

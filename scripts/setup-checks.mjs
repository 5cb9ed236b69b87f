// What a fresh machine lacks for `npm start` / `npm test`, decided from probes (real ones here, fake ones in tests).
// Plain Node, no dependencies: it runs before node_modules exists.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const VULKAN_LOADER_DIRS = [
  '/usr/lib/x86_64-linux-gnu',
  '/usr/lib/aarch64-linux-gnu',
  '/usr/lib64',
  '/usr/lib',
  '/lib/x86_64-linux-gnu',
  '/lib/aarch64-linux-gnu',
];

/**
 * The Debian packages the test suite needs, and how to tell each is there without dpkg
 * (`installed(name)` is dpkg's word when dpkg exists; the file checks cover other installs).
 */
export const SYSTEM_PACKAGES = [
  {
    name: 'chromium',
    why: 'headless browser for the browser and e2e suites, and SwiftShader (WebGPU without a GPU)',
    present: (p) => p.exists(p.env.CHROMIUM_PATH || DEFAULT_CHROMIUM) && p.exists(SWIFTSHADER_ICD),
  },
  {
    name: 'libvulkan1',
    why: 'the Vulkan loader that Dawn (Node) uses to reach SwiftShader',
    present: (p) => p.installed('libvulkan1') === true || VULKAN_LOADER_DIRS.some((dir) => p.exists(`${dir}/libvulkan.so.1`)),
  },
  {
    name: 'fonts-liberation',
    why: 'fonts for the page screenshots of the e2e suite',
    present: (p) => p.installed('fonts-liberation') === true || p.exists('/usr/share/fonts/truetype/liberation'),
  },
];

/** Names of the missing Debian packages. SPLADE_LAB_SETUP_PRETEND_MISSING=a,b reports those as missing whatever is installed. */
export function missingSystemPackages(probes) {
  const pretend = new Set(
    (probes.env.SPLADE_LAB_SETUP_PRETEND_MISSING ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  return SYSTEM_PACKAGES.filter((pkg) => pretend.has(pkg.name) || !pkg.present(probes)).map((pkg) => pkg.name);
}

/**
 * How to get the missing packages: nothing to do, apt-get as root, apt-get through passwordless sudo,
 * or a message for the user (not root, no apt-get, not Linux).
 * @returns {{ action: 'none' } | { action: 'install', commands: string[][] } | { action: 'tell', message: string }}
 */
export function systemInstallPlan(missing, probes) {
  if (missing.length === 0) return { action: 'none' };
  const listed = SYSTEM_PACKAGES.filter((pkg) => missing.includes(pkg.name)).map((pkg) => `  ${pkg.name}: ${pkg.why}`);
  const aptArgs = ['install', '-y', '-qq', '--no-install-recommends', ...missing];
  if (probes.platform !== 'linux' || !probes.hasAptGet()) {
    return {
      action: 'tell',
      message: [
        'The tests need a Chromium with WebGPU and a Vulkan loader; these are missing:',
        ...listed,
        'This is not a Debian-like Linux with apt-get: install Chromium (set CHROMIUM_PATH to its executable if it is not',
        `${DEFAULT_CHROMIUM}) and a Vulkan loader, then run \`npm test\` again.`,
      ].join('\n'),
    };
  }
  const env = ['env', 'DEBIAN_FRONTEND=noninteractive'];
  if (probes.isRoot())
    return {
      action: 'install',
      commands: [
        [...env, 'apt-get', 'update', '-qq'],
        [...env, 'apt-get', ...aptArgs],
      ],
    };
  if (probes.hasPasswordlessSudo()) {
    return {
      action: 'install',
      commands: [
        ['sudo', '-n', ...env, 'apt-get', 'update', '-qq'],
        ['sudo', '-n', ...env, 'apt-get', ...aptArgs],
      ],
    };
  }
  return {
    action: 'tell',
    message: [
      'The tests need Debian packages that are not installed:',
      ...listed,
      'Installing them needs root (this user is not root and has no passwordless sudo). Run this, then `npm test` again:',
      `  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing.join(' ')}`,
    ].join('\n'),
  };
}

/** The dependency names and specs package.json declares (dependencies + devDependencies + optionalDependencies). */
function declared(manifest) {
  return { ...manifest.optionalDependencies, ...manifest.devDependencies, ...manifest.dependencies };
}

/**
 * Why `npm ci` must run (a sentence), or null when node_modules matches package-lock.json.
 * node_modules/.package-lock.json is npm's record of the installed tree; packages it lacks are fine only when optional
 * (another platform's binaries). Throws when package.json and package-lock.json disagree (npm ci would refuse).
 * @param {{ readJson(path: string): any | null }} files  reads a JSON file of the repository, null when absent
 */
export function npmInstallReason(files) {
  const manifest = files.readJson('package.json');
  const lock = files.readJson('package-lock.json');
  if (!manifest || !lock) throw new Error('package.json or package-lock.json is missing: run this from the repository root');
  const want = declared(manifest);
  const locked = declared(lock.packages?.[''] ?? {});
  const drift = Object.keys({ ...want, ...locked }).filter((name) => want[name] !== locked[name]);
  if (drift.length > 0) {
    throw new Error(
      `package.json and package-lock.json disagree about ${drift.join(', ')}: run \`npm install\` and commit package-lock.json`,
    );
  }
  const installed = files.readJson('node_modules/.package-lock.json');
  if (!installed) return 'node_modules is not installed';
  const lockedPackages = lock.packages ?? {};
  const installedPackages = installed.packages ?? {};
  const differ = [];
  for (const [path, entry] of Object.entries(lockedPackages)) {
    if (path === '') continue;
    const have = installedPackages[path];
    if (!have) {
      if (!entry.optional && !entry.devOptional) differ.push(`${path.replace(/^.*node_modules\//, '')} missing`);
    } else if (have.version !== entry.version) {
      differ.push(`${path.replace(/^.*node_modules\//, '')} ${have.version} -> ${entry.version}`);
    }
  }
  for (const path of Object.keys(installedPackages)) {
    if (!(path in lockedPackages)) differ.push(`${path.replace(/^.*node_modules\//, '')} no longer in the lock file`);
  }
  if (differ.length === 0) return null;
  const shown = differ.slice(0, 5).join(', ') + (differ.length > 5 ? `, and ${differ.length - 5} more` : '');
  return `node_modules does not match package-lock.json (${shown})`;
}

/** Probes of this machine. */
export function realProbes(env = process.env) {
  const which = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
  return {
    env,
    platform: process.platform,
    exists: (path) => existsSync(path),
    /** dpkg's status of a package: true/false, or null without dpkg. */
    installed: (name) => {
      if (!which('dpkg-query')) return null;
      try {
        const out = execFileSync('dpkg-query', ['-W', '-f=${db:Status-Status}\\n', name], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        return out.split('\n').includes('installed');
      } catch {
        return false;
      }
    },
    isRoot: () => typeof process.getuid === 'function' && process.getuid() === 0,
    hasAptGet: () => which('apt-get'),
    hasPasswordlessSudo: () => which('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0,
  };
}

/** Reads JSON files under the repository root; null when a file is absent. */
export function repoFiles(root) {
  return {
    readJson: (path) => {
      const file = join(root, path);
      return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
    },
  };
}

/**
 * Whether a Node version satisfies an engines range of the simple forms package.json uses here
 * ("^20.19.0 || ^22.13.0 || >=24"): a sentence naming both when it does not, else null.
 */
export function nodeVersionProblem(version, range) {
  const parse = (text) =>
    text
      .replace(/^v/, '')
      .split('.')
      .map((part) => Number.parseInt(part, 10) || 0);
  const have = parse(version);
  const compare = (a, b) => {
    for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
    return 0;
  };
  const satisfies = (clause) => {
    const [, op, bound] = /^\s*(\^|>=)\s*([\d.]+)\s*$/.exec(clause) ?? [];
    if (!op) throw new Error(`engines.node: cannot read "${clause}" (use ^x.y.z or >=x clauses joined by ||)`);
    const want = parse(bound);
    return op === '>=' ? compare(have, want) >= 0 : have[0] === want[0] && compare(have, want) >= 0;
  };
  if (range.split('||').some(satisfies)) return null;
  return `splade-lab needs Node ${range} (package.json "engines"); this is Node ${version.replace(/^v/, '')}. Install a supported Node (for example from Debian/NodeSource packages or nvm), then run the command again.`;
}

// Packs what scripts/gpu-check.sh needs on a machine that reaches no package registry (the lent GPU machine): this
// Node binary, the installed packages that the kernel tests and both benches load (their dependency closure, with
// source maps, type declarations and other platforms' native builds left out) and the Vulkan loader's Debian packages.
//   node scripts/device-kit.mjs [kit-dir]      (after `npm ci`; default kit-dir: .devkit, which git ignores)
// The device then runs scripts/device-gpu-check.sh with the kit carried beside the working tree.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closure, ROOTS, unused, VULKAN_DEBS } from './device-kit-files.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const kit = resolve(root, process.argv[2] ?? '.devkit');
/** The tree travels with the kit: 64 MiB in all (the device tool's limit); the kit keeps well under it. */
const KIT_LIMIT_BYTES = 56 * 2 ** 20;

function sizeOf(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + sizeOf(join(path, entry)), 0);
}

function main() {
  const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const packages = closure(root, [...ROOTS, ...Object.keys(own.dependencies ?? {})]);
  rmSync(kit, { recursive: true, force: true });
  const staging = join(kit, 'staging');
  mkdirSync(staging, { recursive: true });
  for (const dir of packages) cpSync(dir, join(staging, relative(root, dir)), { recursive: true, filter: (src) => !unused(src) });
  execFileSync('tar', ['-cJf', join(kit, 'node_modules.tar.xz'), '-C', staging, 'node_modules'], {
    env: { ...process.env, XZ_OPT: '-6 -T0' },
  });
  rmSync(staging, { recursive: true, force: true });
  execFileSync('bash', ['-c', 'xz -6 -T0 -c "$0" > "$1"', process.execPath, join(kit, 'node.xz')]);
  const debs = join(kit, 'debs');
  mkdirSync(debs, { recursive: true });
  execFileSync('apt-get', ['download', ...VULKAN_DEBS], { cwd: debs, stdio: 'inherit' });
  const bytes = sizeOf(kit);
  console.log(
    `device kit: ${kit} (${(bytes / 2 ** 20).toFixed(1)} MiB: Node ${process.version}, ${packages.length} packages, ${VULKAN_DEBS.join(', ')})`,
  );
  if (bytes > KIT_LIMIT_BYTES)
    throw new Error(
      `device-kit: ${(bytes / 2 ** 20).toFixed(1)} MiB is over the ${KIT_LIMIT_BYTES / 2 ** 20} MiB the device tool can carry with the tree`,
    );
}

main();

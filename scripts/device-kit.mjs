// Packs what scripts/gpu-check.sh needs on a machine that reaches no package registry (the lent GPU machine): this
// Node binary, the installed packages that the kernel tests and both benches load (their dependency closure, with
// source maps, type declarations and other platforms' native builds left out) and the Vulkan loader's Debian packages.
//   node scripts/device-kit.mjs [kit-dir]      (after `npm ci`; default kit-dir: .devkit, which git ignores)
// The device then runs scripts/device-gpu-check.sh with the kit carried beside the working tree.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const kit = resolve(root, process.argv[2] ?? '.devkit');
/** The tree travels with the kit: 64 MiB in all (the device tool's limit); the kit keeps well under it. */
const KIT_LIMIT_BYTES = 56 * 2 ** 20;
/** Packages the GPU check loads, beside the project's own dependencies. */
const ROOTS = ['vitest', 'tsx', 'webgpu', 'vite', '@tensorflow/tfjs', '@tensorflow/tfjs-backend-webgpu', '@jax-js/jax', 'onnxruntime-web'];
/** The Vulkan loader Dawn opens (the device's image may lack it), as Debian packages to unpack there. */
const VULKAN_DEBS = ['libvulkan1'];

/**
 * Files inside packages that nothing the check runs loads. Each rule names its package and why: source maps, type
 * declarations and documents; other platforms' native builds; packages shipped as many prebuilt bundles, of which Node
 * loads one (TensorFlow.js: its "main"; onnxruntime-web: its Node build and the plain WebAssembly backend).
 */
const UNUSED = [
  { files: /\.(map|d\.ts|d\.mts|d\.cts|md|markdown)$/i },
  { package: 'webgpu', files: /^dist\/(?!linux-x64(\/|$))/ },
  { package: /^@tensorflow\//, files: /^dist\/(?!tf-[\w-]+\.node\.js$|tf\.node\.js$)/ },
  { package: 'onnxruntime-web', files: /^dist\/(?!ort\.node\.|ort-wasm-simd-threaded\.(wasm|mjs)$)/ },
  // the binary is @esbuild/linux-x64's; esbuild's own copy is an install-time shortcut
  { package: 'esbuild', files: /^bin\/esbuild$/ },
];
/** Dependencies that are declared but never loaded by the Node builds the check runs (TensorFlow.js's polyfills). */
const NOT_LOADED = new Set(['core-js']);

/** Whether a file (or folder) inside node_modules is one nothing loads. */
function unused(path) {
  const inside = path.split('/node_modules/').at(-1);
  const parts = inside.split('/');
  const name = parts[0].startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  const rest = inside.slice(name.length + 1);
  return UNUSED.some((rule) => {
    const ofPackage = rule.package === undefined || (typeof rule.package === 'string' ? rule.package === name : rule.package.test(name));
    return ofPackage && rest !== '' && rule.files.test(rest);
  });
}

/** The folder of `name` as Node resolves it from `fromDir` (the nearest node_modules upwards). */
function packageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root || dirname(dir) === dir) return null;
  }
}

/** Every installed package reachable from the roots through dependencies and installed optional or peer dependencies. */
function closure(names) {
  const seen = new Set();
  const queue = names.map((name) => ({ name, from: root, required: true }));
  while (queue.length) {
    const { name, from, required } = queue.shift();
    const dir = packageDir(name, from);
    if (!dir) {
      if (required) throw new Error(`device-kit: ${name} is not installed (run npm ci first)`);
      continue;
    }
    if (seen.has(dir) || NOT_LOADED.has(name)) continue;
    seen.add(dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys(manifest.dependencies ?? {})) queue.push({ name: dep, from: dir, required: true });
    for (const dep of Object.keys({ ...manifest.optionalDependencies, ...manifest.peerDependencies })) queue.push({ name: dep, from: dir, required: false });
  }
  return [...seen];
}

function sizeOf(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + sizeOf(join(path, entry)), 0);
}

function main() {
  const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const packages = closure([...ROOTS, ...Object.keys(own.dependencies ?? {})]);
  rmSync(kit, { recursive: true, force: true });
  const staging = join(kit, 'staging');
  mkdirSync(staging, { recursive: true });
  for (const dir of packages) cpSync(dir, join(staging, relative(root, dir)), { recursive: true, filter: (src) => !unused(src) });
  execFileSync('tar', ['-cJf', join(kit, 'node_modules.tar.xz'), '-C', staging, 'node_modules'], { env: { ...process.env, XZ_OPT: '-6 -T0' } });
  rmSync(staging, { recursive: true, force: true });
  execFileSync('bash', ['-c', 'xz -6 -T0 -c "$0" > "$1"', process.execPath, join(kit, 'node.xz')]);
  const debs = join(kit, 'debs');
  mkdirSync(debs, { recursive: true });
  execFileSync('apt-get', ['download', ...VULKAN_DEBS], { cwd: debs, stdio: 'inherit' });
  const bytes = sizeOf(kit);
  console.log(`device kit: ${kit} (${(bytes / 2 ** 20).toFixed(1)} MiB: Node ${process.version}, ${packages.length} packages, ${VULKAN_DEBS.join(', ')})`);
  if (bytes > KIT_LIMIT_BYTES) throw new Error(`device-kit: ${(bytes / 2 ** 20).toFixed(1)} MiB is over the ${KIT_LIMIT_BYTES / 2 ** 20} MiB the device tool can carry with the tree`);
}

main();

// Which installed files the GPU machine's kit carries (scripts/device-kit.mjs): the dependency closure of the packages
// the GPU check loads, less the files that nothing it runs loads.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Packages the GPU check loads, beside the project's own dependencies. */
export const ROOTS = [
  'vitest',
  'tsx',
  'webgpu',
  'vite',
  '@tensorflow/tfjs',
  '@tensorflow/tfjs-backend-webgpu',
  '@jax-js/jax',
  'onnxruntime-web',
];
/**
 * The Vulkan loader Dawn opens and the GL vendor-neutral dispatch libraries that NVIDIA's Vulkan driver
 * (libGLX_nvidia.so.0) needs to load (the device's image lacks both), as Debian packages to unpack there.
 */
export const VULKAN_DEBS = ['libvulkan1', 'libglvnd0', 'libglx0', 'libgl1', 'libegl1', 'libgles2', 'libopengl0'];

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
export function unused(path) {
  const inside = path.split('/node_modules/').at(-1);
  const parts = inside.split('/');
  const name = parts[0].startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  const rest = inside.slice(name.length + 1);
  return UNUSED.some((rule) => {
    const ofPackage =
      rule.package === undefined || (typeof rule.package === 'string' ? rule.package === name : rule.package.test(name));
    return ofPackage && rest !== '' && rule.files.test(rest);
  });
}

/** The folder of `name` as Node resolves it from `fromDir` (the nearest node_modules upwards). */
function packageDir(root, name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root || dirname(dir) === dir) return null;
  }
}

/** Every installed package reachable from the roots through dependencies and installed optional or peer dependencies. */
export function closure(root, names) {
  const seen = new Set();
  const queue = names.map((name) => ({ name, from: root, required: true }));
  while (queue.length) {
    const { name, from, required } = queue.shift();
    const dir = packageDir(root, name, from);
    if (!dir) {
      if (required) throw new Error(`device-kit: ${name} is not installed (run npm ci first)`);
      continue;
    }
    if (seen.has(dir) || NOT_LOADED.has(name)) continue;
    seen.add(dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys(manifest.dependencies ?? {})) queue.push({ name: dep, from: dir, required: true });
    for (const dep of Object.keys({ ...manifest.optionalDependencies, ...manifest.peerDependencies }))
      queue.push({ name: dep, from: dir, required: false });
  }
  return [...seen];
}

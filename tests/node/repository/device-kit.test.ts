// The GPU machine's kit (scripts/device-kit.mjs) carries what the GPU check loads: the packages' Node entry points,
// the native builds for linux-x64 and the WebAssembly onnxruntime-web runs in Node, and not the rest.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain-JavaScript script module, without declarations
import { closure, ROOTS, unused } from '../../../scripts/device-kit-files.mjs';

const root = join(import.meta.dirname, '..', '..', '..');

const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

const packages: string[] = closure(root, [...ROOTS, ...Object.keys(own.dependencies)]);

const names = packages.map((dir) => relative(join(root, 'node_modules'), dir));

describe('device kit', () => {
  it('takes the dependency closure of the check, without what it never loads', () => {
    for (const name of [
      'vitest',
      'vite',
      'tsx',
      'webgpu',
      'esbuild',
      '@esbuild/linux-x64',
      '@tensorflow/tfjs-core',
      '@jax-js/jax',
      'onnxruntime-web',
      'comlink',
    ])
      expect(names).toContain(name);
    expect(names).not.toContain('core-js');
    expect(names).not.toContain('playwright-core');
    expect(names).not.toContain('typescript');
  });

  it("keeps every package's Node entry point", () => {
    for (const dir of packages) {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { main?: string };
      if (!manifest.main) continue;
      const main = [manifest.main, `${manifest.main}.js`, join(manifest.main, 'index.js')]
        .map((m) => join(dir, m))
        .find(existsSync);
      if (main) expect(unused(main), relative(root, main)).toBe(false);
    }
    const ort = join(root, 'node_modules', 'onnxruntime-web');
    const node = (
      JSON.parse(readFileSync(join(ort, 'package.json'), 'utf8')) as { exports: { '.': { node: Record<string, string> } } }
    ).exports['.'].node;
    for (const file of [...Object.values(node), 'dist/ort-wasm-simd-threaded.wasm', 'dist/ort-wasm-simd-threaded.mjs'])
      expect(unused(join(ort, file)), file).toBe(false);
    expect(unused(join(root, 'node_modules/webgpu/dist/linux-x64/dawn.node'))).toBe(false);
    expect(unused(join(root, 'node_modules/@esbuild/linux-x64/bin/esbuild'))).toBe(false);
  });

  it('leaves out maps, declarations, other platforms and the bundles Node does not load', () => {
    for (const file of [
      'node_modules/webgpu/dist/win32-x64',
      'node_modules/webgpu/dist/darwin-universal/dawn.node',
      'node_modules/@tensorflow/tfjs-core/dist/tf-core.js',
      'node_modules/@tensorflow/tfjs-core/dist/ops',
      'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.jsep.wasm',
      'node_modules/onnxruntime-web/dist/ort.all.min.mjs',
      'node_modules/vitest/dist/index.d.ts',
      'node_modules/vite/dist/node/index.js.map',
      'node_modules/esbuild/bin/esbuild',
    ])
      expect(unused(join(root, file)), file).toBe(true);
  });
});

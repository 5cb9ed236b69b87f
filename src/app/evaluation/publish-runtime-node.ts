// The published folder's splade-search.js: src/publish-runtime/splade-search.ts and the files it imports, bundled by
// esbuild (tsx's, a dependency of the CLI) into one minified ES module with no import left in it.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { PublishRuntime } from './publish-site.ts';

const ENTRY = fileURLToPath(new URL('../../publish-runtime/splade-search.ts', import.meta.url));

let bundled: Promise<PublishRuntime> | null = null;

/** The runtime bundle (made once per process). */
export function searchRuntime(): Promise<PublishRuntime> {
  bundled ??= build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    minify: true,
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
    banner: { js: '// splade-search.js: a static learned-sparse search, written by splade-lab publish (docs/publish.md)' },
  }).then((result) => {
    const script = result.outputFiles[0].contents;
    // any import but import.meta (the runtime finds its folder from its own URL)
    if (/\bimport\b(?!\.meta\b)/.test(new TextDecoder().decode(script)))
      throw new Error('the search runtime bundle still imports a module: src/publish-runtime must import nothing outside itself');
    return { script };
  });
  return bundled;
}

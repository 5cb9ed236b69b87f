// The published folder's runtime, bundled by esbuild (tsx's, a dependency of the CLI) into two minified ES modules
// with no import left in them: splade-search.js (the page's API and element, src/publish-runtime/splade-search.ts) and
// splade-search-worker.js (the engine, search-worker.ts), which the page starts as its worker.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { PublishRuntime } from './publish-site.ts';

const PAGE_ENTRY = fileURLToPath(new URL('../../publish-runtime/splade-search.ts', import.meta.url));
const ENGINE_ENTRY = fileURLToPath(new URL('../../publish-runtime/search-worker.ts', import.meta.url));

/** One minified ES module of `entry` and what it imports, with no import left but the engine's file by its URL. */
async function bundle(entry: string, banner: string): Promise<Uint8Array> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    minify: true,
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
    banner: { js: banner },
  });
  const script = result.outputFiles[0].contents;
  // any import but import.meta, and a dynamic import() of a computed URL (the engine's file, beside the page's)
  if (/\bimport\b(?!\.meta\b)(?!\((?!["'`]))/.test(new TextDecoder().decode(script)))
    throw new Error('the search runtime bundle still imports a module: src/publish-runtime must import nothing outside itself');
  return script;
}

let bundled: Promise<PublishRuntime> | null = null;

/** The runtime bundles, the page's and the engine's (made once per process). */
export function searchRuntime(): Promise<PublishRuntime> {
  bundled ??= Promise.all([
    bundle(PAGE_ENTRY, '// splade-search.js: a static learned-sparse search, written by splade-lab publish (docs/publish.md)'),
    bundle(
      ENGINE_ENTRY,
      "// splade-search-worker.js: splade-search.js's engine, written by splade-lab publish (docs/publish.md)",
    ),
  ]).then(([script, worker]) => ({ script, worker }));
  return bundled;
}

// Import boundaries of src/ (`npm run lint:boundaries`): which layer may import which, what the page may reach through
// any chain of imports, where `node:*` may be imported, and no cycles. docs/ARCHITECTURE.md draws the same picture;
// change both in one commit.
//
// Layers, top to bottom (an arrow means "may import"; every layer may import its own folder, contract/ and util/):
//   main.ts   -> ui
//   ui        -> worker/api.ts (which re-exports only contract/ and the client), and publish-runtime/'s element and
//                engine (the published search tried in the page: plain DOM and arithmetic, no GPU)
//   worker    -> app
//   cli       -> app
//   app       -> train, model, retrieval, io, kernels, gpu
//   train     -> model, kernels, gpu, io
//   model     -> kernels, gpu, io
//   retrieval -> io, publish-runtime
//   publish-runtime -> nothing: the published folder's splade-search.js is bundled from it alone
//   io, kernels (-> gpu, shaders/), gpu (-> shaders/prelude.wgsl)
//   contract  -> util only: the plain data and pure rules every layer shares (requests, limits, events, results, ...)
//   util      -> nothing of ours
// Type-only imports count like any other import.

/** One rule per layer: files under `from` may import, within src/, only paths matching one of `allowed`. */
function layer(name, from, allowed, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: from },
    to: { path: '^src/', pathNot: [...allowed, '^src/(contract|util)/'] },
  };
}

/** Files that run only in Node: the CLI, the Node platform and every `*-node.ts` adapter. */
const NODE_ONLY = '^src/(cli/|.*-node[.]ts$)';

export default {
  forbidden: [
    layer('main-only-ui', '^src/main[.]ts$', ['^src/ui/'], 'The page entry starts the UI and nothing else.'),
    layer(
      'ui-only-worker-api',
      '^src/ui/',
      ['^src/ui/', '^src/worker/api[.]ts$', '^src/publish-runtime/(element|search-worker)[.]ts$'],
      'The UI never touches the GPU: it talks to the worker only through worker/api.ts (contracts and the client); ' +
        "it may show a published search with publish-runtime/'s element and engine, which stand alone.",
    ),
    {
      name: 'page-never-reaches-the-gpu',
      comment:
        'No chain of imports, type-only ones included, leads from the page (main.ts, ui/) to the GPU runtime, the ' +
        'kernels, the model, the trainer, the application layer or the worker internals: what the page needs of them ' +
        'is in contract/.',
      severity: 'error',
      from: { path: '^src/(main[.]ts$|ui/)' },
      to: { path: '^src/(gpu|kernels|model|train|app|io|retrieval)/|^shaders/', reachable: true },
    },
    layer(
      'worker-api-only-contracts',
      '^src/worker/api[.]ts$',
      ['^src/worker/client[.]ts$'],
      "worker/api.ts is the page's door: it re-exports only contract/ and the client.",
    ),
    layer('worker-only-app', '^src/worker/', ['^src/(worker|app)/'], 'The worker drives the GPU through app/ only.'),
    layer('cli-only-app', '^src/cli/', ['^src/(cli|app)/'], 'The CLI does its work through app/ only.'),
    layer(
      'app-not-up',
      '^src/app/',
      ['^src/(app|train|model|retrieval|io|kernels|gpu|publish-runtime)/'],
      'app/ is what the worker and the CLI share: it never imports them, nor the UI.',
    ),
    layer(
      'app-model-not-train',
      '^src/app/model/',
      ['^src/(app|model|retrieval|io|kernels|gpu|publish-runtime)/'],
      "app/model/ (opening, encoding, auditing a model) never reaches into training: an inference-free query's table " +
        'lookup is model/static-query-lookup.ts, the backbone type model/backbone.ts.',
    ),
    layer(
      'train-below-app',
      '^src/train/',
      ['^src/(train|model|kernels|gpu|io)/'],
      'train/ uses the model, kernels, GPU and io.',
    ),
    layer(
      'model-below-train',
      '^src/model/',
      ['^src/(model|kernels|gpu|io)/'],
      'model/ uses kernels, GPU and io, never retrieval.',
    ),
    layer(
      'retrieval-above-io',
      '^src/retrieval/',
      ['^src/(retrieval|io|publish-runtime)/'],
      "retrieval/ may read through io/ and write the published search's format (publish-runtime/), nothing higher.",
    ),
    {
      name: 'production-not-references',
      comment:
        "The float64 references (kernels/reference/, model/reference/, train/**/*-reference.ts) are the tests' oracle, " +
        'not a library: no other file imports them. What both need (rotary tables, dropout hashes, matmul shapes, the ' +
        "head's row statistics, AdamW's constants, position ids) is in kernels/host/ or model/.",
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/(kernels|model)/reference/', '-reference[.]ts$'] },
      to: { path: ['^src/(kernels|model)/reference/', '-reference[.]ts$'] },
    },
    {
      name: 'publish-runtime-stands-alone',
      comment:
        "publish-runtime/ becomes a published folder's splade-search.js, which runs on any static host with no dependency: " +
        'it imports only itself (no package, no node:*, not even contract/ or util/).',
      severity: 'error',
      from: { path: '^src/publish-runtime/' },
      to: { pathNot: '^src/publish-runtime/' },
    },
    layer('io-only-floor', '^src/io/', ['^src/io/'], 'io/ uses only contract/ and util/.'),
    layer('kernels-only-gpu', '^src/kernels/', ['^src/(kernels|gpu)/'], 'Kernel wrappers sit on the GPU runtime only.'),
    layer('gpu-only-floor', '^src/gpu/', ['^src/gpu/'], 'The GPU runtime knows nothing of kernels or models.'),
    {
      name: 'contract-only-util',
      comment: 'contract/ is plain data and pure rules: it imports only itself and util/ (no GPU, no node:*, no package).',
      severity: 'error',
      from: { path: '^src/contract/' },
      to: { pathNot: '^src/(contract|util)/' },
    },
    {
      name: 'util-imports-nothing',
      comment: 'util/ is the floor: it imports nothing of ours and no package.',
      severity: 'error',
      from: { path: '^src/util/' },
      to: { pathNot: '^src/util/' },
    },
    {
      name: 'node-builtins-only-in-node-files',
      comment:
        'Only the CLI and *-node.ts files (the Node platform and its adapters) import node:*, so the page and the worker ' +
        'bundle are browser-safe by rule.',
      severity: 'error',
      from: { path: '^src/', pathNot: NODE_ONLY },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'browser-never-reaches-node-files',
      comment: 'No chain of imports leads from the page or the worker to a Node-only file.',
      severity: 'error',
      from: { path: '^src/(main[.]ts$|ui/|worker/)' },
      to: { path: NODE_ONLY, reachable: true },
    },
    {
      name: 'shaders-only-from-kernels',
      comment: 'Each shader family has one typed wrapper in src/kernels/; nothing else loads WGSL.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(kernels|gpu)/' },
      to: { path: '^shaders/' },
    },
    {
      name: 'gpu-only-the-prelude',
      comment: 'The GPU runtime appends the shared WGSL prelude to every pipeline; the shader families belong to kernels/.',
      severity: 'error',
      from: { path: '^src/gpu/' },
      to: { path: '^shaders/', pathNot: '^shaders/prelude[.]wgsl$' },
    },
    {
      name: 'src-not-to-tests-or-scripts',
      comment: 'The sources never import tests, scripts or bench code.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(tests|scripts|bin)/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles in src/ (a cycle closed by an `import type` is only a warning, below).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-folder-cycles',
      comment:
        'No cycle between folders either (app/training -> app/model -> app/training, say): each folder is a layer or a ' +
        'feature, and arrows between them run one way.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-circular-through-types',
      comment: 'A cycle closed by an `import type` does nothing at run time, but usually means a type lives in the wrong file.',
      severity: 'warn',
      from: { path: '^src/' },
      to: { circular: true, via: { dependencyTypes: ['type-only'] } },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import in src/ resolves to a file or an installed package.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    includeOnly: { path: '^(src|shaders)/|^node:|^[a-z@]' },
    exclude: { path: 'node_modules/.+/node_modules' },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // `import x from '../../shaders/foo.wgsl?raw'` (Vite's raw import) names the file without the query.
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json', '.wgsl'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

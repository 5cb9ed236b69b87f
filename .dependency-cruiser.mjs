// Import boundaries of src/ (`npm run lint:boundaries`): which layer may import which, and no cycles.
//
// Layers, top to bottom (an arrow means "may import"; every layer may import its own folder and src/util/):
//   main.ts -> ui
//   ui      -> worker/api.ts only (the worker's types and the client it re-exports)
//   worker  -> app
//   cli     -> app
//   app     -> train, model, retrieval, io, kernels, gpu
//   train   -> model, kernels, gpu, io
//   model   -> kernels, gpu, io, and the retrieval leaves
//   retrieval -> io (its leaves: only other leaves)
//   io      -> the retrieval leaves
//   kernels -> gpu, shaders/
//   gpu     -> shaders/prelude.wgsl (the WGSL helpers appended to every pipeline)
//   util    -> nothing of ours
// The retrieval leaves are the plain data types shared with io/ and model/: retrieval/sparse-vector.ts,
// retrieval/run-types.ts and retrieval/dataset.ts. Type-only imports count like any other import.

const LEAVES = '^src/retrieval/(sparse-vector|run-types|dataset)[.]ts$';

/** One rule per layer: files under `from` may import, within src/, only paths matching one of `allowed`. */
function layer(name, from, allowed, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: from },
    to: { path: '^src/', pathNot: allowed },
  };
}

export default {
  forbidden: [
    layer('main-only-ui', '^src/main[.]ts$', ['^src/(ui|util)/'], 'The page entry starts the UI and nothing else.'),
    layer(
      'ui-only-worker-api',
      '^src/ui/',
      ['^src/(ui|util)/', '^src/worker/api[.]ts$'],
      'The UI never touches the GPU: it talks to the worker only through worker/api.ts (types and the client it re-exports).',
    ),
    layer('worker-only-app', '^src/worker/', ['^src/(worker|app|util)/'], 'The worker drives the GPU through app/ only.'),
    layer('cli-only-app', '^src/cli/', ['^src/(cli|app|util)/'], 'The CLI does its work through app/ only.'),
    layer(
      'app-not-up',
      '^src/app/',
      ['^src/(app|train|model|retrieval|io|kernels|gpu|util)/'],
      'app/ is what the worker and the CLI share: it never imports them, nor the UI.',
    ),
    layer(
      'train-below-app',
      '^src/train/',
      ['^src/(train|model|kernels|gpu|io|util)/'],
      'train/ uses the model, kernels, GPU and io.',
    ),
    layer(
      'model-below-train',
      '^src/model/',
      ['^src/(model|kernels|gpu|io|util)/', LEAVES],
      'model/ uses kernels, GPU, io and only the retrieval leaves (plain data types), never retrieval logic.',
    ),
    layer(
      'retrieval-leaves-are-leaves',
      LEAVES,
      ['^src/util/', LEAVES],
      'The retrieval leaves sit below io/ and model/, so they import only each other and util/.',
    ),
    layer(
      'retrieval-above-io',
      '^src/retrieval/',
      ['^src/(retrieval|io|util)/'],
      'retrieval/ may read through io/, nothing higher.',
    ),
    layer('io-only-leaves', '^src/io/', ['^src/(io|util)/', LEAVES], 'io/ uses only util/ and the retrieval leaves.'),
    layer('kernels-only-gpu', '^src/kernels/', ['^src/(kernels|gpu|util)/'], 'Kernel wrappers sit on the GPU runtime only.'),
    layer('gpu-only-util', '^src/gpu/', ['^src/(gpu|util)/'], 'The GPU runtime knows nothing of kernels or models.'),
    layer('util-imports-nothing', '^src/util/', ['^src/util/'], 'util/ is the floor: it imports nothing of ours.'),
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
    includeOnly: '^(src|shaders)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // `import x from '../../shaders/foo.wgsl?raw'` (Vite's raw import) names the file without the query.
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json', '.wgsl'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

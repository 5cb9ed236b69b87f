// Vite build of the static page: relative base so the site works from any sub-path. The page's "Publish as a static
// search" reads the published folder's runtime from search-runtime/ beside it (bundled as `splade-lab publish` does).
import { defineConfig, type Plugin } from 'vite';
import { searchRuntime } from './src/app/evaluation/publish-runtime-node.ts';
import { SEARCH_RUNTIME_FOLDER } from './src/app/evaluation/publish-runtime-browser.ts';
import { WORKER_FILE } from './src/publish-runtime/static-search.ts';

/** search-runtime/splade-search.js and its engine: files of the build, and answered by the dev server. */
function searchRuntimeFiles(): Plugin {
  const files = async () => {
    const { script, worker } = await searchRuntime();
    return new Map([
      [`${SEARCH_RUNTIME_FOLDER}splade-search.js`, script],
      [`${SEARCH_RUNTIME_FOLDER}${WORKER_FILE}`, worker],
    ]);
  };
  return {
    name: 'splade-lab-search-runtime',
    configureServer(server) {
      server.middlewares.use((request, response, next) => {
        const path = (request.url ?? '').split('?')[0].replace(/^\/+/, '');
        if (!path.startsWith(SEARCH_RUNTIME_FOLDER)) return next();
        files().then(
          (all) => {
            const bytes = all.get(path);
            if (!bytes) return next();
            response.setHeader('Content-Type', 'text/javascript');
            response.end(bytes);
          },
          (error: unknown) => next(error),
        );
      });
    },
    async generateBundle() {
      for (const [fileName, source] of await files()) this.emitFile({ type: 'asset', fileName, source });
    },
  };
}

export default defineConfig({
  base: './',
  plugins: [searchRuntimeFiles()],
  worker: { format: 'es' },
  build: { target: 'es2022', outDir: 'dist', sourcemap: true },
  server: { fs: { allow: ['..'] } },
});

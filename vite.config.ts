// Vite build of the static page: relative base so the site works from any sub-path.
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  worker: { format: 'es' },
  build: { target: 'es2022', outDir: 'dist', sourcemap: true },
  server: { fs: { allow: ['..'] } },
});

// Browser tests: real headless Chromium (Debian's /usr/bin/chromium) with WebGPU on SwiftShader, kernels in a Web Worker.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { rawImportPlugin } from './scripts/raw-import-plugin.mjs';

/**
 * Every browser test file, run in ONE page: an entry module made at each start that imports them all (the folder is
 * read, so no list is kept by hand). A page per file spent ~2.6 CPU seconds loading the same module graph again, 39
 * times (159 CPU s for the tier, 47 s in one page, the same 137 tests). The files restore what they change (elements
 * they mount, IndexedDB stores they open); a file that fails to load fails the page, naming itself in the error. One
 * file alone: `npx web-test-runner --config web-test-runner.config.mjs --files <file>`.
 */
function onePageEntry() {
  const folder = '.artifacts/browser-tests';
  mkdirSync(folder, { recursive: true });
  const files = readdirSync('tests/browser', { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .sort();
  const entry = `${folder}/all-files.test.ts`;
  writeFileSync(
    entry,
    `// Made by web-test-runner.config.mjs: every browser test file in one page.\n${files.map((name) => `import '../../tests/browser/${name}';`).join('\n')}\n`,
  );
  return entry;
}

export default {
  files: [onePageEntry()],
  // Packages' browser entry points (hyparquet's default one imports node:fs).
  nodeResolve: { browser: true, exportConditions: ['browser'] },
  plugins: [rawImportPlugin(), esbuildPlugin({ ts: true, target: 'es2022', tsconfig: './tsconfig.json' })],
  concurrency: 1,
  testsFinishTimeout: 600_000,
  testFramework: { config: { timeout: 300_000 } },
  browsers: [
    playwrightLauncher({
      product: 'chromium',
      launchOptions: {
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        args: [
          '--no-sandbox',
          '--headless=new',
          '--enable-unsafe-webgpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
          '--disable-quic',
        ],
      },
    }),
  ],
};

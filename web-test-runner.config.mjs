// Browser tests: real headless Chromium (Debian's /usr/bin/chromium) with WebGPU on SwiftShader, kernels in a Web Worker.
import { playwrightLauncher } from '@web/test-runner-playwright';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { rawImportPlugin } from './scripts/raw-import-plugin.mjs';

export default {
  files: ['tests/browser/**/*.test.ts'],
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

// `npm start`: installs the npm dependencies if needed, generates the demo backbone and serves the page with Vite,
// then says which URL to open and with what. Options: --port N, --host [address] (default: localhost:5173).
import { ensureNpmDependencies, ROOT, runNpm } from './setup.mjs';

/** What to open the page with: a browser with WebGPU (flags as our tests use them; see tests/e2e/browser.ts). */
export function browserAdvice(url) {
  return [
    '',
    `  Open ${url} in a browser with WebGPU:`,
    '    Windows, macOS, ChromeOS: a recent Chrome or Edge (113 or later), nothing to enable.',
    '    Linux: Chrome or Chromium with WebGPU enabled, e.g.',
    `      chromium --enable-unsafe-webgpu --enable-features=Vulkan ${url}`,
    '      (without a GPU Chromium runs WebGPU on SwiftShader, its CPU Vulkan driver: slow, but everything works)',
    "    Without WebGPU the page still opens, says what to enable and shows the demo's precomputed head norms.",
    '',
  ].join('\n');
}

function parseArgs(argv) {
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--port') options.port = Number(argv[++i]);
    else if (argv[i] === '--host') options.host = argv[i + 1] && !argv[i + 1].startsWith('--') ? argv[++i] : true;
    else throw new Error(`npm start: unknown option ${argv[i]} (known: --port N, --host [address])`);
  }
  return options;
}

async function main() {
  const server = parseArgs(process.argv.slice(2));
  ensureNpmDependencies();
  runNpm(['run', '--silent', 'demo-backbone']);
  const { createServer } = await import('vite');
  // appType 'mpa': a missing file is a 404, not index.html (Vite's SPA fallback would answer the demo's absent
  // tokenizer.json with HTML, and the page would report invalid JSON instead of falling back to vocab.txt).
  const vite = await createServer({ root: ROOT, appType: 'mpa', server });
  await vite.listen();
  vite.printUrls();
  const url = vite.resolvedUrls?.local[0] ?? vite.resolvedUrls?.network[0] ?? 'http://localhost:5173/';
  console.log(browserAdvice(url));
  vite.bindCLIShortcuts({ print: true });
}

main().catch((error) => {
  console.error(`[start] ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});

// Runs the peers bench inside headless Chromium: a Vite dev server serves scripts/peers/browser.html (TypeScript and
// `?raw` shaders as the page build sees them), and each run gets a fresh page (window.runPeer, window.runInference).
import type { Page } from 'playwright-core';
import { createServer } from 'vite';
import { launchChromium } from '../chromium.ts';
import type { InferenceReport } from './encode-systems.ts';
import type { PeerResult } from './measure-peer.ts';
import type { PeerSystemName } from './peer-system.ts';
import type { PeerSetting, PeerSize } from './problem.ts';

export interface BrowserRun {
  system: PeerSystemName;
  setting: PeerSetting;
}

/** Each run's result, or why it has none; one after the other, each in its own page. */
export async function runInChromium(
  runs: BrowserRun[],
  size: PeerSize,
  reps: number,
  timeoutMs: number,
): Promise<(PeerResult | { why: string })[]> {
  return withPeersPages([], timeoutMs, async (open) => {
    const results: (PeerResult | { why: string })[] = [];
    for (const run of runs) {
      results.push(
        await inPage(open, (page) =>
          page.evaluate(([system, setting, size, reps]) => window.runPeer(system, setting, size, reps), [
            run.system,
            run.setting,
            size,
            reps,
          ] as const),
        ),
      );
    }
    return results;
  });
}

/** The inference rows in Chromium: splade-lab and onnxruntime-web's WebGPU backend on the exported models (length -> file). */
export async function runInferenceInChromium(
  size: PeerSize,
  reps: number,
  models: Map<number, string>,
  timeoutMs: number,
): Promise<InferenceReport> {
  const urls = Object.fromEntries([...models].map(([length, file]) => [length, `/@fs${file}`]));
  return withPeersPages([...models.values()], timeoutMs, async (open) => {
    const outcome = await inPage(open, (page) =>
      page.evaluate(([size, reps, urls]) => window.runInference(size, reps, urls), [size, reps, urls] as const),
    );
    return 'why' in outcome
      ? { rows: [], skipped: [{ system: 'splade-lab and onnxruntime-web (chromium)', why: outcome.why }] }
      : outcome;
  });
}

type OpenPage = () => Promise<Page>;

async function withPeersPages<T>(extraFiles: string[], timeoutMs: number, use: (open: OpenPage) => Promise<T>): Promise<T> {
  const server = await createServer({
    configFile: false,
    root: process.cwd(),
    logLevel: 'error',
    server: { host: '127.0.0.1', port: 0, fs: { allow: [process.cwd(), ...extraFiles] } },
    // bundled before the first page loads, so that no late discovery reloads a page in the middle of a run;
    // onnxruntime-web stays out: it finds its WebAssembly files next to its own module
    optimizeDeps: {
      entries: ['scripts/peers/browser.html'],
      include: ['@tensorflow/tfjs', '@tensorflow/tfjs-backend-webgpu', '@jax-js/jax'],
      exclude: ['onnxruntime-web'],
    },
  });
  await server.listen();
  const browser = await launchChromium(true);
  try {
    const address = server.httpServer?.address();
    if (!address || typeof address === 'string') throw new Error('the Vite server has no port');
    const url = `http://127.0.0.1:${address.port}/scripts/peers/browser.html`;
    return await use(async () => {
      const page = await browser.newPage();
      page.setDefaultTimeout(timeoutMs);
      await page.goto(url);
      await page.waitForFunction(() => window.peersReady === true);
      return page;
    });
  } finally {
    await browser.close();
    await server.close();
  }
}

/** `run` in a fresh page, closed afterwards; its result, or why it has none. */
async function inPage<T>(open: OpenPage, run: (page: Page) => Promise<T>): Promise<T | { why: string }> {
  let page: Page | undefined;
  try {
    page = await open();
    return await run(page);
  } catch (error) {
    return { why: `in Chromium: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
  } finally {
    await page?.close();
  }
}

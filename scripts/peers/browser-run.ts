// Runs peers-bench systems inside headless Chromium: a Vite dev server serves scripts/peers/browser.html (TypeScript
// and `?raw` shaders as the page build sees them), and each system runs in a fresh page through window.runPeer.
import { createServer } from 'vite';
import { launchChromium } from '../chromium.ts';
import type { PeerResult } from './measure-peer.ts';
import type { PeerSystemName } from './peer-system.ts';
import type { PeerSetting, PeerSize } from './problem.ts';

export interface BrowserRun {
  system: PeerSystemName;
  setting: PeerSetting;
}

/** Each run's result, or why it has none; runs one after the other, each in its own page. */
export async function runInChromium(runs: BrowserRun[], size: PeerSize, reps: number, timeoutMs: number): Promise<(PeerResult | { why: string })[]> {
  const server = await createServer({ configFile: false, root: process.cwd(), logLevel: 'error', server: { host: '127.0.0.1', port: 0 } });
  await server.listen();
  const browser = await launchChromium(true);
  try {
    const address = server.httpServer?.address();
    if (!address || typeof address === 'string') throw new Error('the Vite server has no port');
    const url = `http://127.0.0.1:${address.port}/scripts/peers/browser.html`;
    const results: (PeerResult | { why: string })[] = [];
    for (const run of runs) {
      const page = await browser.newPage();
      page.setDefaultTimeout(timeoutMs);
      try {
        await page.goto(url);
        await page.waitForFunction(() => window.peersReady === true);
        const result = await page.evaluate(([system, setting, size, reps]) => window.runPeer(system, setting, size, reps), [run.system, run.setting, size, reps] as const);
        results.push(result);
      } catch (error) {
        results.push({ why: `in Chromium: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` });
      } finally {
        await page.close();
      }
    }
    return results;
  } finally {
    await browser.close();
    await server.close();
  }
}

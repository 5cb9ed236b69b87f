// What every e2e test file shares: the BUILT page (dist/) served under a sub-path from 127.0.0.1 only (plus any
// Hub repositories a file needs), one headless Chromium, and the helpers that read the page the way a user does.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchChromium } from './browser.ts';
import { startTestServer, type ServerOptions, type TestServer } from './static-server.ts';

export const SITE_PATH = '/deep/sub/path/';
/** The GPU on SwiftShader is slow: allow each wait this long. */
export const WAIT = { timeout: 120_000 };

export interface BuiltSite {
  server: TestServer;
  browser: Browser;
  /** The page's URL (ends in "/"). */
  site: string;
}

/** The Hub repositories a file's tests serve, and which of them answer slowly. */
export type SiteOptions = Partial<Pick<ServerOptions, 'hubRepos' | 'slowRepos' | 'files'>>;

/** Serves dist/ (which `npm run build` makes, demo included) and the given Hub repos, and starts Chromium. */
export async function startBuiltSite(options: SiteOptions = {}): Promise<BuiltSite> {
  const dist = join(process.cwd(), 'dist');
  assert.ok(
    existsSync(join(dist, 'index.html')) && existsSync(join(dist, 'demo', 'model.safetensors')),
    'run `npm run build` first (it generates the demo)',
  );
  const server = await startTestServer({
    siteDir: dist,
    sitePath: SITE_PATH,
    hubRepos: options.hubRepos ?? new Map(),
    slowRepos: options.slowRepos,
    files: options.files,
  });
  // Without Dawn's bounds clamps (a quarter less GPU time on SwiftShader): they change only what an out-of-bounds access
  // does, and the kernels' tests against their float64 references keep them (test:node, test:portable, the browser tier).
  return { server, browser: await launchChromium(true, { robustness: false }), site: `${server.origin}${SITE_PATH}` };
}

/** Stops Chromium and the server, and checks that the page never tried to leave 127.0.0.1. */
export async function stopBuiltSite(site: BuiltSite | undefined, offsite: string[]): Promise<void> {
  await site?.browser.close();
  await site?.server.close();
  assert.deepEqual(offsite, [], 'the page tried to reach the network outside 127.0.0.1');
}

/** The built site of one describe block, read inside its tests. */
export interface SuiteSite {
  readonly browser: Browser;
  readonly site: string;
  readonly server: TestServer;
  /** Addresses outside 127.0.0.1 the pages tried (checked empty when the block ends). */
  readonly offsite: string[];
}

/**
 * Starts the built site in a before hook of the calling describe block (its options read then, after the block's
 * earlier hooks have made what they need) and stops it in an after hook, checking that no page left 127.0.0.1.
 */
export function useBuiltSite(options: () => SiteOptions = () => ({})): SuiteSite {
  let built: BuiltSite | undefined;
  const offsite: string[] = [];
  before(async () => {
    built = await startBuiltSite(options());
  });
  after(() => stopBuiltSite(built, offsite));
  const started = (): BuiltSite => {
    if (!built) throw new Error("the built site is started in the describe block's before hook: read it inside a test");
    return built;
  };
  return {
    offsite,
    get browser() {
      return started().browser;
    },
    get site() {
      return started().site;
    },
    get server() {
      return started().server;
    },
  };
}

export /** The shown value of one statistic in the k = 1 column ("1") or the k column ("after"). */
async function stat(page: Page, key: string, column: '1' | 'after'): Promise<number> {
  return Number(await page.locator(`head-stats-table tr[data-stat="${key}"] td[data-k="${column}"]`).textContent());
}

export /** The id of the element that has the keyboard focus, looking into shadow roots. */
function focusedId(page: Page): Promise<string> {
  return page.evaluate(() => {
    let element = document.activeElement;
    while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement;
    return element?.id ?? '';
  });
}

export /** Polls a condition on the test's side (e.g. what the server saw). */
async function until(what: string, condition: () => boolean): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > WAIT.timeout) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export /** Waits for `target`; when it does not come, the error says what `around` showed instead (an error, a status). */
async function waitShowing(target: Locator, around: Locator): Promise<void> {
  try {
    await target.waitFor(WAIT);
  } catch (error) {
    const shown = await around.innerText({ timeout: 5000 }).catch((e: Error) => `(unreadable: ${e.message})`);
    const what = `${target}`.replace(/^locator\('(.*)'\)$/, '$1');
    throw new Error(`it showed "${shown.replace(/\s+/g, ' ').slice(0, 600)}", not ${what} in ${WAIT.timeout / 1000} s`, {
      cause: error,
    });
  }
}

export /** The first value a loss chart's text summary gives for a series ("k = 1: 1234 at step 1, …"). */
async function firstValue(page: Page, chart: string, series: string): Promise<number> {
  const text = (await page.locator(`${chart} #summary li[data-series="${series}"]`).textContent()) ?? '';
  const match = new RegExp(`${series}: (\\S+) at step 1[,.]`).exec(text.replace(/\s+/g, ' '));
  assert.ok(match, `no first value in "${text}"`);
  return Number(match[1]);
}

/** Waits until the statistics table is of the head divided by `k` (at k = 1 its one column) and measured. */
export async function waitForK(page: Page, k: number): Promise<void> {
  await page.locator(`head-stats-table table[data-k="${k}"]`).waitFor(WAIT);
  await page.waitForFunction(
    () => !document.querySelector('splade-app')?.shadowRoot?.querySelector('head-norm-panel')?.hasAttribute('busy'),
    null,
    WAIT,
  );
}

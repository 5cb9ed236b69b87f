// The e2e tests' browser helpers: headless Chromium (scripts/chromium.ts), pages that may reach only 127.0.0.1, screenshots.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { launchChromium } from '../../scripts/chromium.ts';

export { launchChromium };

export const ARTIFACTS = join(process.cwd(), '.artifacts', 'e2e');

/** A 1280 x 900 page whose requests may only go to 127.0.0.1; anything else is aborted and recorded. */
export async function openPage(browser: Browser, offsite: string[]): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
    offsite.push(url.href);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') console.log(`[page error] ${message.text()}`);
  });
  page.on('pageerror', (error) => console.log(`[page exception] ${error.message}`));
  return { context, page };
}

/** The whole page, or (given a locator) one part of it, as .artifacts/e2e/<name>.png. */
export async function screenshot(page: Page, name: string, part?: Locator): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await (part ? part.screenshot({ path }) : page.screenshot({ path, fullPage: true }));
}

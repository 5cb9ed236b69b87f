// Launches Debian's headless Chromium (WebGPU on SwiftShader, or without WebGPU) for the e2e tests; no network.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const BASE_FLAGS = [
  '--no-sandbox',
  '--headless=new',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export const ARTIFACTS = join(process.cwd(), '.artifacts', 'e2e');

/** Playwright gives each launch a fresh temporary profile (the --user-data-dir the flags call for). */
export async function launchChromium(webgpu: boolean): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...BASE_FLAGS, ...(webgpu ? ['--enable-unsafe-webgpu'] : [])],
  });
}

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

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

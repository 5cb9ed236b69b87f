// Launches Debian's headless Chromium (WebGPU on SwiftShader, or without WebGPU; CHROMIUM_PATH elsewhere), for the
// e2e tests and the peers bench's browser rows. Playwright gives each launch a fresh temporary profile.
import { chromium, type Browser } from 'playwright-core';

const BASE_FLAGS = [
  '--no-sandbox',
  '--headless=new',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export interface ChromiumOptions {
  /**
   * false: WebGPU without the bounds clamps Dawn adds to every buffer access (its `disable_robustness` toggle). A
   * kernel that reads and writes in bounds gives the same bits either way, and on SwiftShader the clamps cost about a
   * quarter of the GPU's time; every browser keeps them, and so does every run but the page's e2e suite. Default true.
   */
  robustness?: boolean;
}

export async function launchChromium(webgpu: boolean, options: ChromiumOptions = {}): Promise<Browser> {
  const gpuFlags = webgpu
    ? ['--enable-unsafe-webgpu', ...(options.robustness === false ? ['--enable-dawn-features=disable_robustness'] : [])]
    : [];
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...BASE_FLAGS, ...gpuFlags],
  });
}

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

export async function launchChromium(webgpu: boolean): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...BASE_FLAGS, ...(webgpu ? ['--enable-unsafe-webgpu'] : [])],
  });
}

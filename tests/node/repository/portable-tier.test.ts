// The portable run's rule (vitest.portable.config.ts: tests/node/kernels and *.gpu.test.ts, no list): every kernel test
// (a file calling expectKernel or checkKernel, or running a case table of tests/node/kernels/cases) falls under it, so
// a new kernel is never left out of the run under WebGPU's default limits; every file under it touches the GPU, so a
// CPU-only file does not repeat there; and Chromium runs every case table too.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PORTABLE_FILES } from '../../../vitest.portable.config.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** A path glob of the config (`**` any folders, `*` within one) as a regular expression. */
function globPattern(glob: string): RegExp {
  const within = (part: string) =>
    part
      .split('*')
      .map((text) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*');
  return new RegExp(`^${glob.split('**/').map(within).join('(?:.*/)?')}$`);
}

const nodeTests = readdirSync(join(ROOT, 'tests/node'), { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => `tests/node/${name.split('\\').join('/')}`);
const portable = nodeTests.filter((file) => PORTABLE_FILES.some((glob) => globPattern(glob).test(file)));
const source = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('the portable run', () => {
  it('includes every kernel test', () => {
    const kernelTests = nodeTests.filter((file) =>
      /\b(expectKernel|checkKernel|describeKernelFamily|itEachKernelCase)\(/.test(source(file)),
    );
    expect(kernelTests.length).toBeGreaterThan(10);
    expect(kernelTests.filter((file) => !portable.includes(file))).toEqual([]);
  });

  it('includes only files that touch the GPU (the others run once, in test:node)', () => {
    expect(portable.length).toBeGreaterThan(20);
    const gpu = /helpers\/gpu\.ts'|\bnodeGpuContext\b|\bdescribeKernelFamily\(/;
    expect(portable.filter((file) => !gpu.test(source(file)))).toEqual([]);
  });

  it('is not the only other device: Chromium runs every kernel case table', () => {
    const tables = readdirSync(join(ROOT, 'tests/node/kernels/cases')).filter((name) => name !== 'kernel-case.ts');
    const browser = source('tests/browser/kernel-cases.test.ts');
    expect(tables.length).toBeGreaterThan(10);
    expect(tables.filter((name) => !browser.includes(`'../node/kernels/cases/${name}'`))).toEqual([]);
  });
});

// The portable run's file list: every listed file exists, and every kernel test (a file calling expectKernel or
// checkKernel, or running a case table of tests/node/kernels/cases) is in it, so a new kernel is never left out of the
// run under WebGPU's default limits.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PORTABLE_TEST_FILES } from '../../portable-files.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('the portable run', () => {
  it('lists files that exist', () => {
    for (const file of PORTABLE_TEST_FILES) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });

  it('includes every kernel test', () => {
    const kernelTests = readdirSync(join(ROOT, 'tests/node'), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.test.ts'))
      .filter((name) =>
        /\b(expectKernel|checkKernel|describeKernelFamily|itEachKernelCase)\(/.test(
          readFileSync(join(ROOT, 'tests/node', name), 'utf8'),
        ),
      )
      .map((name) => `tests/node/${name}`);
    expect(kernelTests.length).toBeGreaterThan(10);
    expect(kernelTests.filter((file) => !PORTABLE_TEST_FILES.includes(file))).toEqual([]);
  });

  it('is not the only other device: Chromium runs every kernel case table', () => {
    const tables = readdirSync(join(ROOT, 'tests/node/kernels/cases')).filter((name) => name !== 'kernel-case.ts');
    const browser = readFileSync(join(ROOT, 'tests/browser/kernel-cases.test.ts'), 'utf8');
    expect(tables.length).toBeGreaterThan(10);
    expect(tables.filter((name) => !browser.includes(`'../node/kernels/cases/${name}'`))).toEqual([]);
  });
});

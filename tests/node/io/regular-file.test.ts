// Files read whole are read only when regular, within a cap (issue 33, item 16): a device is refused before it is
// opened, a file over the cap is refused naming its size, and a file at the cap is read whole.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROMPTLY_MS } from '../../helpers/promptly.ts';
import { readRegularFile } from '../../../src/io/regular-file-node.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-regular-file-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('readRegularFile', () => {
  it('reads only regular files, within a cap', async () => {
    const started = performance.now();
    await expect(readRegularFile('/dev/zero', { what: 'the record' })).rejects.toThrow(
      'the record /dev/zero is a character device, not a file',
    );
    const big = join(root, 'big.json');
    await writeFile(big, '0'.repeat(2000));
    await expect(readRegularFile(big, { what: 'the record', maxBytes: 1000 })).rejects.toThrow(
      `the record ${big} is 1.95 KiB, more than 1000 B: such a file is never this large`,
    );
    expect(await readRegularFile(big, { maxBytes: 2000 })).toHaveLength(2000);
    // a file whose size the system reports as 0 is read to its end all the same
    if (process.platform === 'linux') expect((await readRegularFile('/proc/self/status')).length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
  });
});

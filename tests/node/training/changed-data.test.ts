// A triplet file changed while training reads it: every row read back is checked against the CRC-32 the index took,
// and a Node file against its size and modification time, so a rewrite in place (same line lengths, other words)
// stops the run with a message that names the line and says the checkpoints are kept, instead of training on it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryFile } from '../../../src/io/random-access.ts';
import { openRandomAccessFile } from '../../../src/io/random-access-node.ts';
import { indexTripletFile } from '../../../src/io/triplets/triplet-index.ts';

const TEXT = 'the cat\ta cat sleeps\ta dog barks\nthe sea\twaves on the sea\ta car drives\nthe sun\tthe sun shines\train falls\n';
/** The same line lengths, other words. */
const REWRITTEN = TEXT.replace(/cat/g, 'cow').replace(/sea/g, 'sky');

const roots: string[] = [];
afterAll(() => Promise.all(roots.map((root) => rm(root, { recursive: true, force: true }))));

describe('a triplet file changed while training', () => {
  it('a row rewritten in place (same length) is refused by its CRC-32, naming the line; untouched rows still read', async () => {
    const bytes = new TextEncoder().encode(TEXT);
    const indexed = await indexTripletFile(memoryFile(bytes, 'data.tsv'), 'tsv');
    bytes.set(new TextEncoder().encode(REWRITTEN));
    expect((await indexed.source.read([2]))[0].query).toBe('the sun');
    await expect(indexed.source.read([0])).rejects.toThrow(
      /data\.tsv line 1: the file changed since training started reading it\. Training stopped here and its checkpoints are kept/,
    );
    await expect(indexed.source.read([2, 1])).rejects.toThrow(/line 2: the file changed/);
  });

  it('a Node file rewritten in place is refused at the next read, whatever rows it asks for', async () => {
    const root = await mkdtemp(join(tmpdir(), 'splade-changed-'));
    roots.push(root);
    const path = join(root, 'data.tsv');
    await writeFile(path, TEXT);
    const file = await openRandomAccessFile(path);
    try {
      const indexed = await indexTripletFile(file, 'tsv');
      expect(await indexed.source.read([0, 1, 2])).toHaveLength(3);
      await new Promise((resolve) => setTimeout(resolve, 20)); // a later modification time on every file system
      await writeFile(path, REWRITTEN);
      await expect(indexed.source.read([2])).rejects.toThrow(/data\.tsv \(it was modified at .*\): the file changed/);
      await writeFile(path, TEXT + 'the end\tof it\tall\n');
      await expect(indexed.source.read([2])).rejects.toThrow(/its size went from \d+ to \d+ bytes/);
    } finally {
      await file.close();
    }
  });
});

// `splade-lab publish --vectors <folder>`: the document vectors kept as they are encoded and read back: a second
// publish with other weights encodes nothing and writes what a publish from scratch writes; a publish killed between
// chunks (a chunk file missing) resumes, encoding only that chunk; a damaged chunk is named and encoded again; a
// folder of another k is refused and left as it was; the chunk codec round-trips and refuses bad bytes.
import { mkdtemp, readdir, readFile, rm, truncate, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeVectorChunk, encodeVectorChunk } from '../../../src/app/evaluation/publish-vectors-node.ts';
import { runCli } from '../../helpers/cli.ts';
import { generatedBeir } from '../../helpers/generated-data.ts';
import { writeTinyPublishModels } from '../../helpers/tiny-sparse-encoder-folder.ts';

let root: string;
let router: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-publish-vectors-'));
  ({ router } = await writeTinyPublishModels(root));
});

afterAll(() => rm(root, { recursive: true, force: true }));

const publish = (out: string, ...more: string[]) =>
  runCli('publish', '--model', router, '--corpus', generatedBeir(), '--out', join(root, out), '--doc-length', '32', ...more);

/** Every file of a published folder by its path, as base64 (manifest.json too: it holds no time or path). */
async function folderBytes(out: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(join(root, out), { recursive: true, withFileTypes: true }))
    if (entry.isFile())
      files.set(
        join(entry.parentPath, entry.name).slice(join(root, out).length),
        (await readFile(join(entry.parentPath, entry.name))).toString('base64'),
      );
  return files;
}

describe('publish --vectors', () => {
  it('keeps the vectors, reads them back (other weights: nothing encoded, the same folder as from scratch), resumes a missing chunk, encodes a damaged one again', async () => {
    const vectors = join(root, 'vectors');
    const first = await publish('site-a', '--vectors', vectors, '--vector-chunk', '64');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`document vectors: 0 read from ${vectors}, 192 encoded and kept there`);
    expect((await readdir(vectors)).sort()).toEqual(['chunk-00000.bin', 'chunk-00001.bin', 'chunk-00002.bin', 'vectors.json']);

    const again = await publish('site-b', '--vectors', vectors, '--vector-chunk', '64', '--weights', 'float32');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`document vectors: 192 read from ${vectors}, 0 encoded and kept there`);
    const scratch = await publish('site-c', '--weights', 'float32');
    expect(scratch.code, scratch.stderr).toBe(0);
    expect(await folderBytes('site-b')).toEqual(await folderBytes('site-c'));

    // killed before its last chunk was written; then a chunk cut short
    await unlink(join(vectors, 'chunk-00002.bin'));
    const resumed = await publish('site-d', '--vectors', vectors, '--vector-chunk', '64', '--weights', 'float32');
    expect(resumed.stderr).toContain(`document vectors: 128 read from ${vectors}, 64 encoded and kept there`);
    await truncate(join(vectors, 'chunk-00001.bin'), 100);
    const mended = await publish('site-e', '--vectors', vectors, '--vector-chunk', '64', '--weights', 'float32');
    expect(mended.stderr).toMatch(/warning: \S+chunk-00001\.bin: .*; its documents are encoded again/);
    expect(mended.stderr).toContain(`document vectors: 128 read from ${vectors}, 64 encoded and kept there`);
    for (const site of ['site-d', 'site-e']) expect(await folderBytes(site)).toEqual(await folderBytes('site-c'));
  });

  it("refuses a folder of another k's vectors, or of none, and leaves it as it was", async () => {
    const vectors = join(root, 'vectors-k1');
    expect((await publish('site-f', '--vectors', vectors)).code).toBe(0);
    const before = await readFile(join(vectors, 'vectors.json'), 'utf8');
    const other = await publish('site-g', '--vectors', vectors, '--k', '2');
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(/--vectors \S+ holds other vectors \(k 1 there, 2 asked\): give another folder, or remove it/);
    expect(await readFile(join(vectors, 'vectors.json'), 'utf8')).toBe(before);
    const stranger = join(root, 'stranger');
    await rm(stranger, { recursive: true, force: true });
    await publish('site-h', '--vectors', join(root, 'stranger', 'x'));
    await writeFile(join(stranger, 'x', 'notes.txt'), 'mine');
    await rm(join(stranger, 'x', 'vectors.json'));
    const foreign = await publish('site-i', '--vectors', join(stranger, 'x'));
    expect(foreign.stderr).toMatch(/holds files but no vectors\.json: it is not a folder of vectors this command wrote/);
    const inside = await publish('site-j', '--vectors', join(root, 'site-j', 'v'));
    expect(inside.stderr).toMatch(/--vectors \S+ and --out \S+ overlap/);
  });

  it('the chunk codec round-trips, and refuses a flipped byte, a wrong count and a foreign file', () => {
    const vectors = [
      { indices: Uint32Array.from([3, 70000]), values: Float32Array.from([0.5, 1.25]) },
      { indices: new Uint32Array(0), values: new Float32Array(0) },
    ];
    const bytes = encodeVectorChunk(vectors);
    expect(decodeVectorChunk(bytes, 2)).toEqual(vectors);
    const flipped = bytes.slice();
    flipped[14] ^= 1;
    expect(() => decodeVectorChunk(flipped, 2)).toThrow(/checksum/);
    expect(() => decodeVectorChunk(bytes, 3)).toThrow(/2 vectors where 3 belong/);
    expect(() => decodeVectorChunk(new TextEncoder().encode('{"not": "vectors"}'), 2)).toThrow(/not a chunk/);
  });
});

// Model folders as a careless or hostile user may hand them over: a symbolic link out of the folder or a FIFO is
// refused (never read, never copied into a trained model); only the tokenizer files a model needs are copied; a
// model folder replaced by a run is replaced whole, and leftovers of an interrupted replacement are cleaned up.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { collectTokenizerFiles } from '../../../src/io/formats/save.ts';
import { writeFolderAtomically } from '../../../src/train/checkpoint-store-node.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-folder-safety-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('model folders', () => {
  it('refuses a symbolic link that leaves the folder, follows one that stays inside, and refuses a FIFO', async () => {
    const model = join(root, 'model');
    await mkdir(model);
    await writeFile(join(root, 'private-key'), 'SECRET');
    await writeFile(join(model, 'vocab.txt'), '[PAD]\n');
    await symlink(join(root, 'private-key'), join(model, 'merges.txt'));
    await symlink(join(model, 'vocab.txt'), join(model, 'vocab-link.txt'));
    execFileSync('mkfifo', [join(model, 'tokenizer.json')]);
    const source = createFolderSource(model);
    await expect(source.readFile('merges.txt')).rejects.toThrow(
      /merges\.txt resolves through a symbolic link to .*private-key, outside the folder: refused/,
    );
    await expect(source.readRange!('merges.txt', 0, 4)).rejects.toThrow(/outside the folder: refused/);
    expect(new TextDecoder().decode((await source.readFile('vocab-link.txt'))!)).toBe('[PAD]\n');
    await expect(source.readFile('tokenizer.json')).rejects.toThrow(/tokenizer\.json is not a regular file .*FIFO.*refused/);
    expect(await source.readFile('absent.json')).toBeNull();
  });

  it("refuses a file reached through a linked folder that leaves the model (a Router's module folder linked elsewhere)", async () => {
    const model = join(root, 'router');
    const elsewhere = join(root, 'elsewhere');
    await mkdir(model);
    await mkdir(elsewhere);
    await writeFile(join(elsewhere, 'model.safetensors'), 'SECRET');
    await symlink(elsewhere, join(model, 'query_0_SparseStaticEmbedding'));
    await mkdir(join(model, 'inside'));
    await writeFile(join(model, 'inside', 'config.json'), '{}');
    await symlink(join(model, 'inside'), join(model, 'document_0_MLMTransformer'));
    const source = createFolderSource(model);
    await expect(source.readFile('query_0_SparseStaticEmbedding/model.safetensors')).rejects.toThrow(
      /query_0_SparseStaticEmbedding\/model\.safetensors resolves through a symbolic link to .*elsewhere.*outside the folder: refused/,
    );
    expect(new TextDecoder().decode((await source.readFile('document_0_MLMTransformer/config.json'))!)).toBe('{}');
  });

  it('copies only the tokenizer files the loader uses: tokenizer.json (or vocab.txt) and the tokenizer configs', async () => {
    const model = join(root, 'tokenizers');
    await mkdir(model);
    for (const name of [
      'tokenizer.json',
      'tokenizer_config.json',
      'special_tokens_map.json',
      'vocab.txt',
      'vocab.json',
      'merges.txt',
      'notes.md',
    ]) {
      await writeFile(join(model, name), name);
    }
    const withJson = await collectTokenizerFiles(createFolderSource(model));
    expect([...withJson.keys()].sort()).toEqual(['special_tokens_map.json', 'tokenizer.json', 'tokenizer_config.json']);
    await rm(join(model, 'tokenizer.json'));
    const withVocab = await collectTokenizerFiles(createFolderSource(model));
    expect([...withVocab.keys()].sort()).toEqual(['special_tokens_map.json', 'tokenizer_config.json', 'vocab.txt']);
  });
});

describe('replacing a folder', () => {
  const files = (text: string) =>
    new Map([
      ['a.txt', new TextEncoder().encode(text)],
      ['sub/b.txt', new TextEncoder().encode(text)],
    ]);

  it('replaces the whole folder, and leaves nothing hidden behind', async () => {
    const dir = join(root, 'out', 'model');
    await writeFolderAtomically(dir, files('one'));
    await writeFile(join(dir, 'stale.txt'), 'from the old model');
    await writeFolderAtomically(dir, files('two'));
    expect((await readdir(dir)).sort()).toEqual(['a.txt', 'sub']);
    expect(await readFile(join(dir, 'sub', 'b.txt'), 'utf8')).toBe('two');
    expect(await readdir(join(root, 'out'))).toEqual(['model']);
  });

  it('after a crash between the two renames, the next write cleans up and lands whole', async () => {
    const parent = join(root, 'crashed');
    await mkdir(join(parent, '.model.replaced-999', 'sub'), { recursive: true });
    await writeFile(join(parent, '.model.replaced-999', 'a.txt'), 'old');
    await mkdir(join(parent, '.model.partial-998'), { recursive: true });
    await writeFile(join(parent, '.model.partial-998', 'a.txt'), 'half');
    await writeFolderAtomically(join(parent, 'model'), files('new'));
    expect(await readdir(parent)).toEqual(['model']);
    expect(await readFile(join(parent, 'model', 'a.txt'), 'utf8')).toBe('new');
  });
});

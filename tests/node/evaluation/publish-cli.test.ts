// `splade-lab publish` end to end, in-process, with a tiny inference-free Router: the folder it writes (every file
// listed in manifest.json with its size and SHA-256, a runtime with no import, the nDCG@10 lines), titles with markup
// kept as text, a 5 MB document, and what it refuses (repeated or empty ids, --cap 0, a model that is not inference-free, an --out that
// holds an input); a write that fails part-way leaves no manifest.json in --out and a previous publish untouched.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePublishFolder } from '../../../src/app/evaluation/publish-folder-node.ts';
import { SearchEngine } from '../../../src/publish-runtime/engine.ts';
import type { Manifest, StoredDocument } from '../../../src/publish-runtime/manifest.ts';
import { runCli } from '../../helpers/cli.ts';
import { generatedBeir } from '../../helpers/generated-data.ts';
import { writeTinyPublishModels } from '../../helpers/tiny-sparse-encoder-folder.ts';

const MARKUP_TITLE = '<img src=x onerror=alert(1)> and </script><script>alert(2)</script>';

let root: string;
let plain: string; // the tiny MLM model alone: not inference-free
let router: string; // the same model as a Router with a static query table
let site: string; // the generated set, published once
let published = ''; // what that publish printed

const jsonl = (records: object[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

async function corpusFile(name: string, records: object[]): Promise<string> {
  const path = join(root, name);
  await writeFile(path, jsonl(records));
  return path;
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) out.push(relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'));
  return out.sort();
}

const readManifest = async (dir: string) => JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-publish-cli-'));
  ({ plain, router } = await writeTinyPublishModels(root));
  site = join(root, 'sites', 'generated');
  const { code, stdout, stderr } = await runCli(
    'publish',
    ...['--model', router, '--corpus', generatedBeir(), '--out', site, '--doc-length', '32', '--shard-kb', '4'],
  );
  if (code !== 0) throw new Error(`publish of the generated set failed: ${stderr}`);
  published = stdout;
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('splade-lab publish', () => {
  it('writes a folder whose manifest lists every file with its size and SHA-256, and prints nDCG@10 against exact', async () => {
    const manifest = await readManifest(site);
    const files = await filesUnder(site);
    expect(files).toEqual([...manifest.files.map((f) => f.path), 'manifest.json'].sort());
    for (const entry of manifest.files) {
      const bytes = await readFile(join(site, entry.path));
      expect({ path: entry.path, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }).toEqual(entry);
    }
    expect(files).toEqual(expect.arrayContaining(['index.html', 'splade-search.js', 'query/tokenizer.json']));
    expect(
      files.some((f) => /^query\/vocabulary\/\d+\.txt$/.test(f)),
      'vocabulary shards',
    ).toBe(true);
    expect(files.filter((f) => f.startsWith('splade/')).length).toBeGreaterThan(1); // 4 KB shards: several
    expect(files.some((f) => f.startsWith('bm25/'))).toBe(true);
    expect(files.filter((f) => f.startsWith('docs/'))).toEqual(manifest.documents.chunks);
    expect(manifest.corpus.documents).toBe(192);
    expect(manifest.corpus.fingerprint).toBe(
      `sha256:${createHash('sha256')
        .update(await readFile(join(generatedBeir(), 'corpus.jsonl')))
        .digest('hex')}`,
    );
    // a local model is named by its folder's name: the published page never shows where it lay on this machine
    expect(manifest.model).toMatchObject({ name: 'router', k: 1, inferenceFree: true, documentLength: 32 });
    expect(JSON.stringify(manifest)).not.toContain(root);
    expect(await readFile(join(site, 'index.html'), 'utf8')).not.toContain(root);
    // the runtime is two modules: the page's imports nothing but the engine's file beside it, only where no worker may
    // start (import.meta finds their folder); the engine's imports nothing
    const runtime = await readFile(join(site, 'splade-search.js'), 'utf8');
    expect(runtime.match(/\bimport\b(?!\.meta\b)/g)).toEqual(['import']);
    expect(runtime).toMatch(/\bimport\(new URL\(/);
    expect(runtime).toContain('"splade-search-worker.js"');
    expect(runtime).toContain('customElements.define("splade-search"');
    expect(runtime).not.toContain('SearchEngine');
    const engine = await readFile(join(site, 'splade-search-worker.js'), 'utf8');
    expect(engine.match(/\bimport\b(?!\.meta\b)/g)).toBeNull();
    expect(engine).not.toContain('customElements');

    expect(published).toMatch(/^published 192 documents of beir into /m);
    expect(published).toMatch(
      /^nDCG@10 splade +\d\.\d{4} published against \d\.\d{4} exact \(32 queries; cost -?\d\.\d{4}; \d+ top-1000 rankings differ/m,
    );
    expect(published).toMatch(/^nDCG@10 bm25 +\d\.\d{4} published against \d\.\d{4} exact \(32 queries/m);
    // what a search with nothing cached transfers, the runtime's bytes and every file a fresh engine reads
    const cold =
      /^cold search +([\d.]+) KB at the median, ([\d.]+) KB at the 90th percentile over 32 queries \((\d+) and (\d+) files, the runtime's ([\d.]+) KB included/m.exec(
        published,
      );
    expect(cold, published).not.toBeNull();
    const [p50, p90, filesP50, filesP90, runtimeKb] = cold!.slice(1).map(Number);
    expect(p50).toBeLessThanOrEqual(p90);
    expect(filesP50).toBeLessThanOrEqual(filesP90);
    expect(filesP50).toBeGreaterThan(3);
    const runtimeBytes = (
      await Promise.all(['index.html', 'splade-search.js', 'splade-search-worker.js'].map((f) => readFile(join(site, f))))
    ).reduce((sum, bytes) => sum + bytes.length, 0);
    expect(runtimeKb).toBeCloseTo(runtimeBytes / 1024, 1);
    expect(p50).toBeGreaterThan(runtimeKb);
  });

  it('keeps a title with markup as JSON text in its document chunk, and the runtime puts titles in as text only', async () => {
    const corpus = await corpusFile('markup.jsonl', [
      { _id: 'x1', title: MARKUP_TITLE, text: 'the cat sat on the mat' },
      { _id: 'x2', title: 'plain', text: 'the dog ran fast' },
    ]);
    const out = join(root, 'sites', 'markup');
    const { code, stderr } = await runCli('publish', '--model', router, '--corpus', corpus, '--out', out, '--no-bm25');
    expect(stderr).not.toMatch(/^splade-lab publish:/m);
    expect(code).toBe(0);
    const chunk = await readFile(join(out, 'docs/0000.json'), 'utf8');
    expect((JSON.parse(chunk) as StoredDocument[])[0]).toEqual(['x1', MARKUP_TITLE, '', 'the cat sat on the mat']);
    expect(await readFile(join(out, 'index.html'), 'utf8')).not.toContain('onerror');
    // the search hands the title back as data
    const engine = await SearchEngine.open((path) => readFile(join(out, path)).then((b) => new Uint8Array(b)));
    const result = await engine.search('cat mat', { k: 2 });
    expect(result.hits[0]).toMatchObject({ id: 'x1', title: MARKUP_TITLE });
    // and the element writes every corpus text through textContent or text nodes, never as markup
    const runtime = await readFile(join(out, 'splade-search.js'), 'utf8');
    expect(runtime).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment/);
    expect(runtime).toContain('textContent');
  });

  it('publishes a corpus holding a 5 MB document: its text cut to its first million characters with a warning, found by its words, its snippet short', async () => {
    const words = ['cat', 'dog', 'mat', 'sat', 'ran', 'fast'];
    const huge = Array.from({ length: 1_250_000 }, (_, i) => words[i % words.length]).join(' '); // about 5.2 MB
    expect(huge.length).toBeGreaterThan(5_000_000);
    const corpus = await corpusFile('huge.jsonl', [
      { _id: 'big', title: 'the big one', text: huge },
      { _id: 'small', title: 'small', text: 'the dog ran fast' },
    ]);
    const out = join(root, 'sites', 'huge');
    const { code, stderr } = await runCli('publish', '--model', router, '--corpus', corpus, '--out', out, '--no-bm25');
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/huge\.jsonl: 1 title or text field\(s\) over 1000000 characters kept only their first 1000000/);
    const [big] = JSON.parse(await readFile(join(out, 'docs/0000.json'), 'utf8')) as StoredDocument[];
    expect(big[0]).toBe('big');
    expect(big[3].length).toBeLessThanOrEqual(300); // the snippet, not the document
    const engine = await SearchEngine.open((path) => readFile(join(out, path)).then((b) => new Uint8Array(b)));
    expect((await engine.search('cat mat', { k: 2 })).hits[0]).toMatchObject({ id: 'big' }); // words only it holds
  });

  it('refuses repeated and empty ids, --cap 0 and a model that is not inference-free, naming what and where', async () => {
    const out = join(root, 'sites', 'refused');
    const refused = async (...argv: string[]) => {
      const run = await runCli('publish', '--out', out, ...argv);
      expect(run.code).not.toBe(0);
      return run.stderr;
    };
    const twice = await corpusFile('twice.jsonl', [
      { _id: 'a', text: 'the cat' },
      { _id: 'a', text: 'the dog' },
    ]);
    expect(await refused('--model', router, '--corpus', twice)).toContain(
      `${twice}:2: _id "a" repeats the _id of line 1; ids must be unique`,
    );
    const empty = await corpusFile('empty-id.jsonl', [{ _id: '', text: 'the cat' }]);
    expect(await refused('--model', router, '--corpus', empty)).toContain(
      `${empty}:1: _id "" is empty; give the record an id of its own`,
    );
    const fine = await corpusFile('fine.jsonl', [{ _id: 'a', text: 'the cat' }]);
    expect(await refused('--model', router, '--corpus', fine, '--cap', '0')).toContain(
      '--cap 0 would keep no document in any posting list: give N >= 1, or leave --cap out',
    );
    expect(await refused('--model', plain, '--corpus', fine)).toContain(
      `${plain} is not inference-free (its queries need the model itself, not a table lookup)`,
    );
    expect(await refused('--model', router, '--corpus', fine, '--heavy')).toContain('--heavy: the heavy mode');
    // nothing was written for any of them
    await expect(readdir(out)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses an --out that holds an input, or a folder publish did not write', async () => {
    const corpus = await corpusFile('inside.jsonl', [{ _id: 'a', text: 'the cat' }]);
    let run = await runCli('publish', '--model', router, '--corpus', corpus, '--out', root);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`--out ${root} holds --model ${router}: refusing to replace an input`);
    run = await runCli('publish', '--model', router, '--corpus', corpus, '--out', router);
    expect(run.stderr).toContain(`--out ${router} holds --model ${router}`);
    const other = join(root, 'someone-elses');
    await mkdir(other);
    await writeFile(join(other, 'notes.txt'), 'mine');
    run = await runCli('publish', '--model', router, '--corpus', corpus, '--out', other);
    expect(run.stderr).toContain(`--out ${other} is a folder that is not empty and was not made by splade-lab publish`);
    expect(await readFile(join(other, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('leaves no manifest.json in --out when writing fails part-way, and a previous publish as it was', async () => {
    const manifest = new TextEncoder().encode('{"format":"splade-lab-static-search"}\n');
    // the second file cannot be made (its folder would be the first file): the write fails after the first
    const broken = [
      { path: 'a.bin', bytes: new Uint8Array(3) },
      { path: 'a.bin/b.bin', bytes: new Uint8Array(3) },
    ];
    const fresh = join(root, 'sites', 'fresh');
    await expect(writePublishFolder(fresh, 'new', broken, manifest)).rejects.toThrow(`--out ${fresh} could not be written`);
    await expect(readdir(fresh)).rejects.toMatchObject({ code: 'ENOENT' });

    const before = await Promise.all((await filesUnder(site)).map((f) => readFile(join(site, f))));
    await expect(writePublishFolder(site, 'previous', broken, manifest)).rejects.toThrow(`--out ${site} could not be written`);
    const after = await Promise.all((await filesUnder(site)).map((f) => readFile(join(site, f))));
    expect(after).toEqual(before);
    // no staging folder is left beside either
    expect((await readdir(join(root, 'sites'))).filter((name) => name.startsWith('.'))).toEqual([]);
  });
});

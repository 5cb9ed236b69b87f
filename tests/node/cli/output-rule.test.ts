// The one output rule (issue 42 item 2): an output that is one of the command's inputs, or a file inside an input
// folder, is refused before any work and the input stays whole; a character device is written in place, never renamed
// over; a write that fails leaves the previous file whole, and a full disk names the path.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeOutputFile } from '../../../src/io/output-file-node.ts';
import { runCli, runCliWith } from '../../helpers/cli.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

const linux = process.platform === 'linux';

let corpus: string;
const workspace = tinyCliWorkspace('splade-output-rule-');
beforeAll(async () => {
  corpus = join(workspace.root, 'corpus.jsonl');
  await writeFile(
    corpus,
    ['the cat sat', 'a dog ran', 'the sea'].map((text, i) => JSON.stringify({ _id: `d${i}`, text })).join('\n') + '\n',
  );
});

describe('an output that is an input is refused before any work', () => {
  it('idf --out naming --corpus leaves the corpus whole', async () => {
    const before = await readFile(corpus, 'utf8');
    const run = await runCliWith('idf', { corpus, tokenizer: workspace.model, out: corpus });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(
      /--out .*corpus\.jsonl is the same file as --corpus .*corpus\.jsonl: refusing to write over an input/,
    );
    expect(await readFile(corpus, 'utf8')).toBe(before);
  });

  it("export-onnx --out naming the model's own weights leaves them whole", async () => {
    const weights = join(workspace.model, 'model.safetensors');
    const before = await readFile(weights);
    const run = await runCli('export-onnx', '--model', workspace.model, '--out', weights);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/--out .*model\.safetensors is a file of --model .*tiny: refusing to write over an input/);
    expect(Buffer.compare(await readFile(weights), before)).toBe(0);
  });

  it('encode --out naming --in leaves the records whole', async () => {
    const before = await readFile(corpus, 'utf8');
    const run = await runCliWith('encode', { model: workspace.model, in: corpus, out: corpus });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/is the same file as --in/);
    expect(run.stderr).not.toMatch(/encoded/); // refused before any encoding
    expect(await readFile(corpus, 'utf8')).toBe(before);
  });
});

describe.runIf(linux)('special files', () => {
  it('export-onnx --out /dev/null writes into the device, which stays a character device', async () => {
    const run = await runCli('export-onnx', '--model', workspace.model, '--out', '/dev/null');
    expect(run.code, run.stderr).toBe(0);
    expect((await stat('/dev/null')).isCharacterDevice()).toBe(true);
  });

  it('a full disk (/dev/full) is said with the path', async () => {
    const run = await runCliWith('idf', { corpus, tokenizer: workspace.model, out: '/dev/full' });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/--out \/dev\/full: the disk is full \(ENOSPC\); free space or write elsewhere/);
  });
});

describe('a write that fails', () => {
  it('leaves the previous file whole, and names the path', async () => {
    const path = join(workspace.root, 'kept.json');
    await writeFile(path, 'previous');
    await mkdir(`${join(workspace.root, 'kept.json')}.partial-${process.pid}`); // the temporary name cannot be written
    await expect(writeOutputFile(path, 'new', '--out')).rejects.toThrow(/--out .*kept\.json could not be written/);
    expect(await readFile(path, 'utf8')).toBe('previous');
  });
});

describe.runIf(linux)('an output where no file can be made', () => {
  it('export-onnx --out /proc/x fails before the model is read', async () => {
    const run = await runCli('export-onnx', '--model', join(workspace.root, 'no-such-model'), '--out', '/proc/x.onnx');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/--out \/proc\/x\.onnx: no file can be made there .*write elsewhere/);
  });
});

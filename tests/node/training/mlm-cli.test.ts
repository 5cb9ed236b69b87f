// `splade-lab mlm` as a user runs it: a BEIR corpus with empty documents (a skip count, then training), a run stopped
// and resumed that ends on the bits of an uninterrupted one, its checkpoints opened as models (the head at that step),
// the text tokenized once (its sequences cached), a masking rate off the backbone's pretraining recipe said once, and
// inputs it must refuse (with nothing saved).
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { TINY_WORDS } from '../../helpers/tiny-splade-model.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';
import { Random } from '../../../src/util/random.ts';
import { maskingRateNote } from '../../../src/contract/training/mlm-recipe.ts';

let text: string;

const workspace = tinyCliWorkspace('splade-mlm-cli-', 'bert');
beforeAll(async () => {
  const random = new Random(5);
  const sentence = () => Array.from({ length: 6 + random.int(6) }, () => TINY_WORDS[random.int(TINY_WORDS.length)]).join(' ');
  text = join(workspace.root, 'text.txt');
  await writeFile(text, Array.from({ length: 40 }, sentence).join('\n') + '\n');
  await mkdir(join(workspace.root, 'beir'));
  const corpus = Array.from({ length: 30 }, (_, i) =>
    JSON.stringify({ _id: String(i), title: '', text: i % 10 === 3 ? '' : sentence() }),
  );
  await writeFile(join(workspace.root, 'beir', 'corpus.jsonl'), corpus.join('\n') + '\n');
});

const COMMON = ['--model', '', '--max-length', '16', '--batch', '4', '--lr', '1e-3', '--report-every', '1', '--json'];
const run = (...args: string[]) => runCli('mlm', ...COMMON.map((a, i) => (i === 1 ? workspace.model : a)), ...args);
/** `run` on the text file into the run folder `<root>/<out>`. */
const runOnText = (out: string, ...args: string[]) => run('--text', text, '--out', join(workspace.root, out), ...args);
const events = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('splade-lab mlm', () => {
  it('trains on a BEIR corpus, saying how many empty documents it skipped', async () => {
    const { code, stdout, stderr } = await run(
      '--text',
      join(workspace.root, 'beir'),
      '--out',
      join(workspace.root, 'beir-run'),
      '--steps',
      '2',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const data = events(stdout).find((e) => e.event === 'data')!;
    expect(data.skipped).toBe(3);
    expect(data.documents).toBe(27);
    const config = JSON.parse(await readFile(join(workspace.root, 'beir-run', 'model', 'config.json'), 'utf8'));
    expect(config.architectures).toEqual(['BertForMaskedLM']);
  });

  it('stopped after 2 steps and resumed to 4, it ends on the bits of an uninterrupted 4-step run', async () => {
    const straight = await runOnText('straight', '--steps', '4', '--checkpoint-every', '2');
    expect(straight.code).toBe(0);
    await writeFile(join(workspace.root, 'straight-events.jsonl'), straight.stdout);
    // the first 2 steps of a 4-step run: a run folder whose newest checkpoint is step 2, as a killed run leaves it
    const first = await runOnText('resumed', '--steps', '4', '--checkpoint-every', '2');
    expect(first.code).toBe(0);
    await rm(join(workspace.root, 'resumed', 'checkpoint', 'step-00000004'), { recursive: true });
    await rm(join(workspace.root, 'resumed', 'model'), { recursive: true });
    const resumed = await runOnText('resumed', '--steps', '4', '--checkpoint-every', '2', '--resume');
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(events(resumed.stdout).find((e) => e.event === 'resume')?.step).toBe(2);
    const steps = events(resumed.stdout).filter((e) => e.event === 'step');
    expect(steps.map((e) => e.step)).toEqual([3, 4]);
    const weights = (folder: string) => readFile(join(workspace.root, folder, 'model', 'model.safetensors'));
    expect(Buffer.compare(await weights('resumed'), await weights('straight'))).toBe(0);
  });

  it('a checkpoint folder opens as a model: inspect shows the head the run measured at that step; a damaged one is refused', async () => {
    const head = events((await readFile(join(workspace.root, 'straight-events.jsonl'), 'utf8')).toString()).find(
      (e) => e.event === 'head' && e.step === 2,
    )!;
    const checkpoint = join(workspace.root, 'straight', 'checkpoint', 'step-00000002');
    const inspected = await runCli('inspect', checkpoint, '--json');
    expect(inspected.stderr).toBe('');
    const report = JSON.parse(inspected.stdout) as { before: { meanRowNorm: number; p99: number } };
    expect(report.before.meanRowNorm).toBeCloseTo(head.meanRowNorm as number, 6);
    expect(report.before.p99).toBeCloseTo(head.p99RowNorm as number, 6);
    const damaged = join(workspace.root, 'damaged');
    await mkdir(damaged);
    for (const file of ['state.json', 'model.safetensors']) {
      const bytes = await readFile(join(checkpoint, file));
      if (file === 'model.safetensors') bytes[bytes.length - 3] ^= 0x40;
      await writeFile(join(damaged, file), bytes);
    }
    const refused = await runCli('inspect', damaged);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/damaged\/model\.safetensors does not match the CRC-32 its state\.json recorded/);
  });

  it("says once when --mlm-probability is off the rate the backbone's family was pretrained at (BERT 15%, ModernBERT 30%)", async () => {
    const off = await runOnText('masking-30', '--steps', '1', '--mlm-probability', '0.3');
    expect(off.stderr).toBe('');
    expect(off.code).toBe(0);
    const notes = events(off.stdout).filter((e) => e.event === 'note' && String(e.note).includes('masking'));
    expect(notes.map((e) => e.note)).toEqual([
      'BERT was pretrained with 15% masking; --mlm-probability 0.3 is off its recipe (--mlm-probability 0.15 follows it)',
    ]);
    const on = await runOnText('masking-15', '--steps', '1');
    expect(events(on.stdout).filter((e) => e.event === 'note')).toEqual([]);
    expect(maskingRateNote('modernbert', 0.15)).toBe(
      'ModernBERT (and Ettin, on its recipe) was pretrained with 30% masking; --mlm-probability 0.15 is off its recipe (--mlm-probability 0.3 follows it)',
    );
    expect(maskingRateNote('modernbert', 0.3)).toBeUndefined();
    expect(maskingRateNote('gte', 0.15)).toBeUndefined();
  });

  it('tokenizes a text once: the next run reads its sequences from the cache and ends on the same bits; a damaged blob is said and made again', async () => {
    const saved = process.env.SPLADE_LAB_BATCH_CACHE;
    const cacheDir = join(workspace.root, 'sequence-cache');
    process.env.SPLADE_LAB_BATCH_CACHE = cacheDir;
    try {
      const train = (out: string, ...extra: string[]) =>
        run('--text', text, '--out', join(workspace.root, out), '--steps', '2', ...extra);
      const data = (stdout: string) => events(stdout).find((e) => e.event === 'data')!;
      const weights = (folder: string) => readFile(join(workspace.root, folder, 'model', 'model.safetensors'));
      const first = await train('cache-1');
      expect(first.code).toBe(0);
      expect(data(first.stdout).cached).toBe(false);
      const [blob] = await readdir(cacheDir);
      expect(blob).toMatch(/^mlm-[0-9a-f]{32}-[0-9a-f]{16}-grouped-16\.tokens$/);
      const second = await train('cache-2');
      expect(data(second.stdout)).toMatchObject({ cached: true, documents: data(first.stdout).documents });
      expect(Buffer.compare(await weights('cache-2'), await weights('cache-1'))).toBe(0);
      const bytes = await readFile(join(cacheDir, blob));
      bytes[bytes.length - 9] ^= 0x01;
      await writeFile(join(cacheDir, blob), bytes);
      const third = await train('cache-3');
      const note = events(third.stdout).find((e) => e.event === 'note');
      expect(String(note?.message)).toMatch(/holds a damaged mlm-.* \(its CRC-32 does not match\): the text is tokenized again/);
      expect(data(third.stdout).cached).toBe(false);
      expect(Buffer.compare(await weights('cache-3'), await weights('cache-1'))).toBe(0);
      expect(data((await train('cache-4')).stdout).cached).toBe(true); // made again
      await rm(cacheDir, { recursive: true });
      expect((await train('cache-5', '--no-batch-cache')).code).toBe(0);
      await expect(readdir(cacheDir)).rejects.toThrow();
    } finally {
      if (saved === undefined) delete process.env.SPLADE_LAB_BATCH_CACHE;
      else process.env.SPLADE_LAB_BATCH_CACHE = saved;
    }
  });

  it('refuses an empty text file and a file of one huge line, saving nothing', async () => {
    await writeFile(join(workspace.root, 'empty.txt'), '');
    const empty = await run(
      '--text',
      join(workspace.root, 'empty.txt'),
      '--out',
      join(workspace.root, 'empty-run'),
      '--steps',
      '1',
    );
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toMatch(/empty\.txt: holds no text/);
    await writeFile(join(workspace.root, 'huge.txt'), 'word '.repeat(900_000) + '\n');
    const huge = await run('--text', join(workspace.root, 'huge.txt'), '--out', join(workspace.root, 'huge-run'), '--steps', '1');
    expect(huge.code).not.toBe(0);
    expect(huge.stderr).toMatch(/huge\.txt:1: a line of 4500000 bytes, over the 4 MiB/);
    await expect(readFile(join(workspace.root, 'huge-run', 'model', 'config.json'))).rejects.toThrow();
  });
});

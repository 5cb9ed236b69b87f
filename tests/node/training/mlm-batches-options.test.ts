// `splade-lab mlm --batches` with the options of a text (issue 42, items 6 and 10): a label on a padded position is
// refused naming the line (transformers would predict it from the padding's hidden state, which splade-lab does not
// reproduce), --mlm-probability and --line-by-line are refused (the batches are masked and laid out already), and the
// run takes the batches' own length instead of checking the default --max-length 128 against the model.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readMaskedBatches } from '../../../src/io/triplets/masked-batches-jsonl.ts';
import { runCliWith } from '../../helpers/cli.ts';
import { TINY_VOCAB } from '../../helpers/tiny-splade-model.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

// the model in bert/ has max_position_embeddings 64: the default --max-length 128 would not fit
const workspace = tinyCliWorkspace('splade-mlm-batches-', 'bert');

/** A pre-masked record of `length` tokens ([CLS] ... [SEP]), padded with `pad` more, a label on position 2. */
function record(length: number, pad = 0) {
  const ids = Array.from({ length }, (_, i) => (i === 0 ? 2 : i === length - 1 ? 3 : 5 + (i % (TINY_VOCAB.length - 5))));
  return {
    input_ids: [...ids, ...Array<number>(pad).fill(0)],
    attention_mask: [...ids.map(() => 1), ...Array<number>(pad).fill(0)],
    labels: [...ids.map((id, i) => (i === 2 ? id : -100)), ...Array<number>(pad).fill(-100)],
  };
}

async function batchesFile(name: string, records: object[]): Promise<string> {
  const path = join(workspace.root, name);
  await writeFile(path, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return path;
}

const eventsOf = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

const mlm = (batches: string, out: string, ...extra: string[]) =>
  runCliWith('mlm', { model: workspace.model, batches, out: join(workspace.root, out), steps: '1', batch: '2' }, ...extra);

describe('a label on a padded position', () => {
  it('is refused by the reader, naming the line and the position', () => {
    const bad = record(5, 2);
    bad.labels[6] = 7; // attention 0 there
    const bytes = new TextEncoder().encode([record(4), bad].map((r) => JSON.stringify(r)).join('\n'));
    expect(() => readMaskedBatches(bytes, 'b.jsonl', { vocabSize: TINY_VOCAB.length, maxLength: 16 })).toThrow(
      /^b\.jsonl:2: "labels"\[6\] is 7 where "attention_mask"\[6\] is 0: a padded position is never predicted here .*; set its label to -100, or its attention to 1 if the token is real$/,
    );
    bad.labels[6] = -100;
    bad.input_ids[6] = 9; // a padded position may hold any id: it is not predicted
    expect(
      readMaskedBatches(new TextEncoder().encode(JSON.stringify(bad)), 'b.jsonl', { vocabSize: 60, maxLength: 16 }),
    ).toHaveLength(1);
  });

  it('is refused by mlm --batches before a step, and nothing is saved', async () => {
    const bad = record(5, 3);
    bad.labels[5] = 9;
    const file = await batchesFile('padded-label.jsonl', [record(6), bad]);
    const { code, stderr } = await mlm(file, 'padded-label-run');
    expect(code).toBe(1);
    expect(stderr).toContain(`${file}:2: "labels"[5] is 9 where "attention_mask"[5] is 0`);
    await expect(readFile(join(workspace.root, 'padded-label-run', 'model', 'config.json'))).rejects.toThrow();
  });
});

describe('mlm --batches and the options of a text', () => {
  it.each([['--mlm-probability', '0.3'], ['--line-by-line']])(
    '%s is refused, saying the batches are masked and laid out already',
    async (...option) => {
      const file = await batchesFile('plain.jsonl', [record(6), record(8)]);
      const { code, stderr } = await mlm(file, 'refused-run', ...option);
      expect(code).toBe(1);
      expect(stderr).toContain(
        `splade-lab mlm: ${option[0]} applies to a --text; --batches are masked and laid out already (their labels say what is predicted): leave ${option[0]} out`,
      );
    },
  );

  it("takes the batches' longest sequence as its length, not the default --max-length 128 the model could not take", async () => {
    const file = await batchesFile('lengths.jsonl', [record(6), record(9, 2), record(7), record(5)]);
    const { code, stdout, stderr } = await mlm(file, 'own-length-run', '--json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const events = eventsOf(stdout);
    expect(events.find((e) => e.event === 'data')).toMatchObject({ sequences: 4, longest: 11 });
    expect(events.find((e) => e.event === 'start').recipe.maxLength).toBe(11);
    // --max-length, when given, is the length the batches are padded to; a longer sequence is refused naming it
    const padded = await mlm(file, 'given-length-run', '--max-length', '16', '--json');
    expect(padded.code, padded.stderr).toBe(0);
    expect(eventsOf(padded.stdout).find((e) => e.event === 'start').recipe.maxLength).toBe(16);
    const short = await mlm(file, 'short-length-run', '--max-length', '8');
    expect(short.stderr).toContain(`${file}:2: 11 tokens, over the run's --max-length 8`);
  });

  it("refuses a sequence longer than the model takes, naming the line and the model's limit", async () => {
    const file = await batchesFile('too-long.jsonl', [record(6), record(70)]);
    const { code, stderr } = await mlm(file, 'too-long-run');
    expect(code).toBe(1);
    expect(stderr).toContain(`${file}:2: 70 tokens, over the 64 tokens this model takes`);
  });
});

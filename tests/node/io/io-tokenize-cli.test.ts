// `splade-lab tokenize`: stdin lines -> JSON lines equal to Hugging Face's reference ids, truncated with --max-length.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturePath } from '../../helpers/fixtures.ts';
import { fileURLToPath } from 'node:url';

const FOLDER = fixturePath('tokenizers/bert-base-uncased');

function runTokenize(args: string[], input: string) {
  return spawnSync(process.execPath, ['bin/splade-lab.mjs', 'tokenize', ...args], { input, encoding: 'utf8', timeout: 60_000 });
}

describe('splade-lab tokenize', () => {
  const cases: { text: string; ids: number[]; text_pair?: string; add_special_tokens?: boolean }[] = JSON.parse(
    readFileSync(join(FOLDER, 'reference_tokenizations_hf_rust.json'), 'utf8'),
  ).cases.filter((c: any) => !c.text_pair && c.add_special_tokens !== false && !/[\r\n\u2028\u2029\u0085]/.test(c.text));

  it('writes one JSON line per input line with the reference ids and a full mask', () => {
    const result = runTokenize([FOLDER], cases.map((c) => c.text).join('\n') + '\n');
    expect(result.status, result.stderr).toBe(0);
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.ids)).toEqual(cases.map((c) => c.ids));
    expect(lines.every((l) => l.attentionMask.length === l.ids.length && l.attentionMask.every((m: number) => m === 1))).toBe(
      true,
    );
  });

  it('truncates with --max-length, keeping [CLS] and [SEP]', () => {
    const long = cases.find((c) => c.ids.length > 20)!;
    const result = runTokenize([FOLDER, '--max-length', '8'], long.text + '\n');
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).ids).toEqual([...long.ids.slice(0, 7), 102]);
  });

  it('fails with a message naming the folder when there is no tokenizer', () => {
    const result = runTokenize([fileURLToPath(new URL('../../../src', import.meta.url))], 'x\n');
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/no tokenizer in folder .*src: neither tokenizer\.json nor vocab\.txt/);
  });
});

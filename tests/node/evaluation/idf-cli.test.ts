// `splade-lab idf`: OpenSearch's idf.json (token -> weight) over a BEIR corpus equals an independent float64
// reference; the formula is stated in --help; a bad corpus is a clear error.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { loadTokenizer } from '../../../src/io/tokenizer-load.ts';
import { documentFrequencyOf, idfWeights } from '../../../src/retrieval/idf-table.ts';
import { runCli } from '../../helpers/cli.ts';
import { fixturePath } from '../../helpers/fixtures.ts';
import { generatedBeir } from '../../helpers/generated-data.ts';
import { idfMismatches, idfReference } from '../../helpers/idf-reference.ts';

const TOKENIZER = fixturePath('tokenizers/bert-base-uncased');
let root: string;
beforeAll(async () => void (root = await mkdtemp(join(tmpdir(), 'splade-idf-'))));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('splade-lab idf', () => {
  it('writes every non-special token with ln(1 + (N - df + 0.5) / (df + 0.5)), equal to the float64 reference', async () => {
    const out = join(root, 'idf.json');
    const { code, stdout, stderr } = await runCli(
      'idf',
      '--corpus',
      generatedBeir(),
      '--tokenizer',
      TOKENIZER,
      '--out',
      out,
      '--json',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    const written = JSON.parse(await readFile(out, 'utf8')) as Record<string, number>;
    const tokenizer = await loadTokenizer(createFolderSource(TOKENIZER));
    const reference = await idfReference(generatedBeir(), tokenizer);
    expect(idfMismatches(written, reference)).toEqual([]);
    expect(summary.tokens).toBe(tokenizer.vocabSize - 5); // [PAD] [UNK] [CLS] [SEP] [MASK] left out
    expect(written['[CLS]']).toBeUndefined();
    // a word of every document weighs less than a word of one, which weighs less than an unseen token
    const weights = Object.values(written);
    expect(Math.min(...weights)).toBeGreaterThan(0);
    expect(Math.max(...weights)).toBeCloseTo(Math.log1p((summary.documents + 0.5) / 0.5), 12);
  });

  it('counts a token once per document, however often it occurs there', () => {
    const { df, documents } = documentFrequencyOf([[1, 1, 1, 2], [2], [3, 3]], 5);
    expect(documents).toBe(3);
    expect([...df]).toEqual([0, 1, 2, 1, 0]);
    const weights = idfWeights(df, documents);
    expect(weights[2]).toBeCloseTo(Math.log(1 + 1.5 / 2.5), 15);
    expect(weights[0]).toBeCloseTo(Math.log(1 + 3.5 / 0.5), 15);
    expect(() => documentFrequencyOf([[7]], 5)).toThrow(/outside the vocabulary of 5/);
  });

  it('states the formula in --help, and refuses an empty corpus or a line that is not JSON, naming it', async () => {
    const help = await runCli('idf', '--help');
    expect(help.stdout).toMatch(/ln\(1 \+ \(N - df\(t\) \+ 0\.5\) \/ \(df\(t\) \+ 0\.5\)\)/);
    const empty = join(root, 'empty.jsonl');
    await writeFile(empty, '');
    let result = await runCli('idf', '--corpus', empty, '--tokenizer', TOKENIZER, '--out', join(root, 'a.json'));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/empty\.jsonl: holds no text/);
    const broken = join(root, 'broken.jsonl');
    await writeFile(broken, '{"_id": "1", "text": "fine"}\n{"_id": "2", "text": \n');
    result = await runCli('idf', '--corpus', broken, '--tokenizer', TOKENIZER, '--out', join(root, 'b.json'));
    expect(result.stderr).toMatch(/broken\.jsonl:2: not valid JSON/);
  });
});

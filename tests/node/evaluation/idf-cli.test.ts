// `splade-lab idf`: OpenSearch's idf.json (token -> weight) over a BEIR corpus equals an independent float64
// reference (tokens in no document at 0); the formula is stated in --help; a corpus under 1,000 documents is warned
// of; a bad corpus is a clear error.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { loadTokenizer } from '../../../src/io/tokenizer/tokenizer-load.ts';
import { documentFrequencyOf, idfWeights } from '../../../src/retrieval/idf-table.ts';
import { runCli, runCliWith } from '../../helpers/cli.ts';
import { fixturePath } from '../../helpers/fixtures.ts';
import { generatedBeir } from '../../helpers/generated-data.ts';
import { idfMismatches, idfReference } from '../../helpers/idf-reference.ts';

const TOKENIZER = fixturePath('tokenizers/bert-base-uncased');
let root: string;
beforeAll(async () => void (root = await mkdtemp(join(tmpdir(), 'splade-idf-'))));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('splade-lab idf', () => {
  it('writes every non-special token with ln(1 + (N - df + 0.5) / (df + 0.5)), 0 when unseen, equal to the float64 reference', async () => {
    const out = join(root, 'idf.json');
    const { code, stdout, stderr } = await runCliWith('idf', { corpus: generatedBeir(), tokenizer: TOKENIZER, out }, '--json');
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    expect(summary.documents).toBeLessThan(1000);
    expect(stderr).toBe(
      `warning: ${generatedBeir()}: IDF over ${summary.documents} documents is noisy; pass --corpus <corpus> with at least 1,000 documents\n`,
    );
    const written = JSON.parse(await readFile(out, 'utf8')) as Record<string, number>;
    const tokenizer = await loadTokenizer(createFolderSource(TOKENIZER));
    const reference = await idfReference(generatedBeir(), tokenizer);
    expect(idfMismatches(written, reference)).toEqual([]);
    expect(summary.tokens).toBe(tokenizer.vocabSize - 5); // [PAD] [UNK] [CLS] [SEP] [MASK] left out
    expect(written['[CLS]']).toBeUndefined();
    // a word of every document weighs less than a word of one; a token of no document weighs 0 (OpenSearch leaves it
    // out of idf.json, sentence-transformers reads it as 0), not ln(2N + 2), the largest weight
    const weights = Object.values(written);
    const unseen = weights.filter((w) => w === 0).length;
    expect(unseen).toBeGreaterThanOrEqual(summary.tokens - summary.tokensSeen);
    expect(unseen).toBeGreaterThan(0);
    expect(Math.min(...weights.filter((w) => w > 0))).toBeGreaterThan(0);
    expect(Math.max(...weights)).toBeLessThanOrEqual(Math.log1p((summary.documents - 1 + 0.5) / 1.5) + 1e-12);
  });

  it('counts a token once per document, however often it occurs there', () => {
    const { df, documents } = documentFrequencyOf([[1, 1, 1, 2], [2], [3, 3]], 5);
    expect(documents).toBe(3);
    expect([...df]).toEqual([0, 1, 2, 1, 0]);
    const weights = idfWeights(df, documents);
    expect(weights[2]).toBeCloseTo(Math.log(1 + 1.5 / 2.5), 15);
    expect(weights[0]).toBe(0); // in no document: 0, as OpenSearch's get_idf.py (not ln(1 + 3.5 / 0.5))
    expect(weights[4]).toBe(0);
    expect(() => documentFrequencyOf([[7]], 5)).toThrow(/outside the vocabulary of 5/);
  });

  it('states the formula and the unseen tokens in --help, and refuses an empty corpus or a line that is not JSON, naming it', async () => {
    const help = await runCli('idf', '--help');
    expect(help.stdout).toMatch(/ln\(1 \+ \(N - df\(t\) \+ 0\.5\) \/ \(df\(t\) \+ 0\.5\)\)/);
    expect(help.stdout).toContain('a token in no document weighs 0');
    const empty = join(root, 'empty.jsonl');
    await writeFile(empty, '');
    let result = await runCliWith('idf', { corpus: empty, tokenizer: TOKENIZER, out: join(root, 'a.json') });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/empty\.jsonl: holds no text/);
    const broken = join(root, 'broken.jsonl');
    await writeFile(broken, '{"_id": "1", "text": "fine"}\n{"_id": "2", "text": \n');
    result = await runCliWith('idf', { corpus: broken, tokenizer: TOKENIZER, out: join(root, 'b.json') });
    expect(result.stderr).toMatch(/broken\.jsonl:2: not valid JSON/);
  });
});

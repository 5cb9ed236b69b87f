// index-stats refuses an impact scale whose Anserini impacts no index could hold (issue 42, item 10): round(S w) of the
// largest document weight over 2^31 - 1 (Lucene's largest term frequency), or infinite as at --scale 1e308, is named
// with the limit and the largest scale that fits, instead of index sizes counted for impacts that cannot exist.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../src/contract/limits.ts';
import { checkImpactScale, MAX_ANSERINI_IMPACT } from '../../../src/retrieval/index-measures.ts';
import { runCli } from '../../helpers/cli.ts';
import { writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

const vector = (...values: number[]) => ({
  indices: Uint32Array.from(values, (_, i) => i),
  values: Float32Array.from(values),
});

describe('checkImpactScale', () => {
  it('takes a scale whose largest impact fits 2^31 - 1, and refuses one past it or infinite, naming the largest that fits', () => {
    const documents = [vector(0.5, 2), vector(1.5)];
    expect(MAX_ANSERINI_IMPACT).toBe(2147483647);
    expect(() => checkImpactScale(documents, 100)).not.toThrow();
    expect(() => checkImpactScale(documents, Math.floor(MAX_ANSERINI_IMPACT / 2))).not.toThrow();
    expect(() => checkImpactScale(documents, 2 ** 30 + 1)).toThrow(InvalidRequestError);
    expect(() => checkImpactScale(documents, 1e308)).toThrow(
      'The impact scale 1e+308 makes the largest document weight, 2, an impact of Infinity, over 2147483647 (2^31 - 1), ' +
        'the largest term frequency a Lucene (Anserini) index stores: its sizes would count impacts no index can hold. ' +
        'Give a scale of at most 1073741823 for these documents',
    );
    expect(() => checkImpactScale([], 1e308)).not.toThrow(); // no weight, no impact
  });
});

describe('splade-lab index-stats --scale', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'splade-impact-scale-'));
    await writeTinySpladeModel(join(root, 'model'));
    await mkdir(join(root, 'beir', 'qrels'), { recursive: true });
    await writeFile(join(root, 'beir', 'corpus.jsonl'), '{"_id":"d1","text":"the cat sat"}\n{"_id":"d2","text":"a dog ran"}\n');
    await writeFile(join(root, 'beir', 'queries.jsonl'), '{"_id":"q1","text":"cat"}\n');
    await writeFile(join(root, 'beir', 'qrels', 'test.tsv'), 'q1\td1\t1\n');
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('1e308 is refused with the limit instead of sizes of infinite impacts', async () => {
    const common = ['--model', join(root, 'model'), '--beir', join(root, 'beir'), '--doc-length', '16', '--query-length', '8'];
    const { code, stdout, stderr } = await runCli('index-stats', ...common, '--scale', '1e308', '--json');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^splade-lab index-stats: The impact scale 1e\+308 makes the largest document weight, [\d.]+, an impact of Infinity, over 2147483647 \(2\^31 - 1\), the largest term frequency a Lucene \(Anserini\) index stores: .* Give a scale of at most \d+ for these documents\n$/,
    );
  });
});

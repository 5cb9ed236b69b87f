// `splade-lab score` on a tiny cross-encoder and a tiny rows file: every pair scored as the float64 reference scores
// it (raw logits; two labels: logit 1 - logit 0; BERT and ModernBERT), written in the label columns train reads, and bad input refused.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemorySource } from '../../../src/io/file-source.ts';
import { parseTripletsJsonl } from '../../../src/io/triplets/triplets-jsonl.ts';
import { parseTriplets, rowNegatives } from '../../../src/io/triplets/triplets.ts';
import { loadClassifier, type LoadedClassifier } from '../../../src/model/load-classifier.ts';
import { classifierForward } from '../../../src/model/reference/classifier.ts';
import { toFloat64Params } from '../../../src/model/weights.ts';
import { runCliWith } from '../../helpers/cli.ts';
import { tempFolderPerFile } from '../../helpers/temp-folder.ts';
import {
  referenceHead,
  tinyCrossEncoderFiles,
  writeTinyCrossEncoder,
  type TinyCrossEncoderOptions,
} from '../../helpers/tiny-cross-encoder.ts';

const ROWS = [
  ['cat mat', 'the cat sat on the mat', 'a dog ran fast', 'the sea'],
  ['gene drug', 'a drug study of the gene', 'music and song', 'the cat and the dog and the river and the forest tree'],
  ['star', 'sun moon and star light', 'paper', 'a book of paper and data'],
];

const folder = tempFolderPerFile('splade-score-cli-');

/** The float64 reference's score of (query, passage): logit, or logit 1 - logit 0. */
function referenceScore(loaded: LoadedClassifier, query: string, passage: string): number {
  const e = loaded.tokenizer.encode(query, { pair: passage });
  const T = e.ids.length;
  const input = { B: 1, T, ids: Int32Array.from(e.ids), mask: e.attentionMask, tokenTypes: Int32Array.from(e.typeIds) };
  const logits = classifierForward(loaded.config, toFloat64Params(loaded.params), referenceHead(loaded), input).logits;
  return logits.length === 1 ? logits[0] : logits[1] - logits[0];
}

async function setUp(name: string, options: TinyCrossEncoderOptions = {}) {
  const teacher = join(folder.root, `${name}-teacher`);
  await writeTinyCrossEncoder(teacher, { seed: 7, ...options });
  const rows = join(folder.root, `${name}-rows.tsv`);
  await writeFile(rows, ['query\tpositive\tnegative_1\tnegative_2', ...ROWS.map((r) => r.join('\t'))].join('\n') + '\n');
  const loaded = await loadClassifier(createMemorySource(tinyCrossEncoderFiles({ seed: 7, ...options })));
  return { teacher, rows, loaded };
}

describe('splade-lab score', () => {
  it.each([
    ['one-label BERT', { labels: { num_labels: 1 } }, 'tsv'],
    ['two-label BERT', {}, 'jsonl'],
    ['two-label ModernBERT (mean pooling)', { family: 'modernbert', pooling: 'mean' }, 'jsonl'],
  ] as [string, TinyCrossEncoderOptions, 'tsv' | 'jsonl'][])(
    'a %s teacher writes the [positive, negatives] raw scores as train reads them',
    async (name, options, kind) => {
      const slug = name.replace(/\W+/g, '-');
      const { teacher, rows, loaded } = await setUp(slug, options);
      const out = join(folder.root, `${slug}-scored.${kind}`);
      const result = await runCliWith('score', { teacher, in: rows, out, batch: '2' });
      expect(result.stderr).not.toMatch(/error/i);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/scored 9 pairs of 3 rows/);
      const bytes = await readFile(out);
      const { triplets } = kind === 'tsv' ? parseTriplets(bytes, out) : parseTripletsJsonl(bytes, out);
      expect(triplets.map((t) => [t.query, t.positive, ...rowNegatives(t)])).toEqual(ROWS);
      triplets.forEach((t, i) => {
        expect(t.label).toHaveLength(3);
        const expected = ROWS[i].slice(1).map((passage) => referenceScore(loaded, ROWS[i][0], passage));
        t.label!.forEach((score, j) =>
          expect(Math.abs(score - expected[j])).toBeLessThanOrEqual(1e-5 * Math.abs(expected[j]) + 1e-6),
        );
      });
    },
  );

  it('refuses rows that already have labels, and a teacher with three labels, writing nothing', async () => {
    const { teacher, rows } = await setUp('bad');
    const labelled = join(folder.root, 'labelled.jsonl');
    await writeFile(labelled, JSON.stringify({ query: 'a', positive: 'cat', negative: 'dog', label: [1, 0] }) + '\n');
    const out = join(folder.root, 'never.tsv');
    const again = await runCliWith('score', { teacher, in: labelled, out });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/already have teacher labels \(row 1\)/);
    const three = join(folder.root, 'three-teacher');
    await writeTinyCrossEncoder(three, { labels: { num_labels: 3 } });
    const wide = await runCliWith('score', { teacher: three, in: rows, out });
    expect(wide.code).not.toBe(0);
    expect(wide.stderr).toMatch(/the teacher has 3 labels/);
    await expect(readFile(out)).rejects.toThrow(/ENOENT/);
  });
});

// A vector's summary flags the special pieces ([CLS], [SEP], [PAD], [unusedN]: the audit's "special" kind) and keeps
// them in its terms with their weights (the alarm rules read them there); lists then show them apart.
import { describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { loadTokenizer } from '../../../src/io/tokenizer/tokenizer-load.ts';
import { summarizeSparse } from '../../../src/app/model/sparse-summary.ts';
import { sparseFromEntries } from '../../../src/util/sparse-vector.ts';
import { fixturePath } from '../../helpers/fixtures.ts';

describe('summarizeSparse', () => {
  it('flags [CLS], [SEP] and [unusedN] as special, and no ordinary word', async () => {
    const tokenizer = await loadTokenizer(createFolderSource(fixturePath('tokenizers/bert-base-uncased')));
    const id = (token: string) => tokenizer.tokenToId(token)!;
    const vector = sparseFromEntries([
      [id('[CLS]'), 3],
      [id('tides'), 2],
      [id('[unused7]'), 1.5],
      [id('moon'), 1],
      [id('[SEP]'), 0.5],
    ]);
    const summary = summarizeSparse('ocean tides', vector, tokenizer, 10);
    expect(summary.terms.map((t) => [t.term, t.special === true])).toEqual([
      ['[CLS]', true],
      ['tides', false],
      ['[unused7]', true],
      ['moon', false],
      ['[SEP]', true],
    ]);
    expect(summary.activeDims).toBe(5);
  });
});

// The page's BEIR reader (picked files, as the Evaluate tab reads them) keeps ids written as JSON numbers as their
// source text: 12345678901234567890 and ...891 stay two documents, 1e400 stays "1e400" (issue 33, item 4).
import { loadBeir } from '../../src/io/beir/beir.ts';
import { createFileListSource } from '../../src/io/file-source-browser.ts';
import { expect } from './expect.ts';

describe('BEIR ids in the page', () => {
  it('keeps numeric ids as written and finds the judged document by them', async () => {
    const corpus = [
      '{"_id": 12345678901234567890, "text": "the cat sat"}',
      '{"_id": 12345678901234567891, "text": "the sea"}',
      '{"_id": 1e400, "text": "a song"}',
    ].join('\n');
    const files = [
      new File([corpus], 'corpus.jsonl'),
      new File(['{"_id": 7, "text": "sea"}\n'], 'queries.jsonl'),
      new File(['7\t12345678901234567891\t1\n'], 'test.tsv'),
    ];
    const dataset = await loadBeir(createFileListSource(files), 'test', 'picked');
    const ids = dataset.corpusIds.join(' ');
    expect(ids, `corpus ids read as ${ids}`).toBe('12345678901234567890 12345678901234567891 1e400');
    expect(dataset.queryIds.join(), `query ids read as ${dataset.queryIds.join()}`).toBe('7');
    expect(dataset.warnings, `warnings: ${dataset.warnings.join('; ')}`).toHaveLength(0);
  });
});

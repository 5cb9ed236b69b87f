// The page's BEIR reader (picked files, as the Evaluate tab reads them) keeps ids written as JSON numbers as their
// source text: 12345678901234567890 and ...891 stay two documents, 1e400 stays "1e400" (issue 33, item 4).
import { loadBeir } from '../../src/io/beir/beir.ts';
import { createFileListSource } from '../../src/io/file-source-browser.ts';

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
    if (ids !== '12345678901234567890 12345678901234567891 1e400') throw new Error(`corpus ids read as ${ids}`);
    if (dataset.queryIds.join() !== '7') throw new Error(`query ids read as ${dataset.queryIds.join()}`);
    if (dataset.warnings.length) throw new Error(`warnings: ${dataset.warnings.join('; ')}`);
  });
});

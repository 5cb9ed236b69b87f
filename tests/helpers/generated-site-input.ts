// The published-search tests' site input: the generated set's SPLADE-shaped document vectors, queried through
// bert-base-uncased's tokenizer and a seeded static weight table (no weight below id 999: the specials and [unused]).
import { queryTokenizerSpec } from '../../src/app/evaluation/publish-query-side.ts';
import type { SiteInput } from '../../src/app/evaluation/publish-site.ts';
import { createFolderSource } from '../../src/io/file-source-node.ts';
import type { TextTokenizer } from '../../src/io/tokenizer/tokenizer.ts';
import { loadTokenizer } from '../../src/io/tokenizer/tokenizer-load.ts';
import { Random } from '../../src/util/random.ts';
import { fixturePath } from './fixtures.ts';
import { generatedSparseSet, type GeneratedSparseSet } from './generated-sparse-set.ts';

/** A record's title and URL, for document `index` of id `id` (default: none). */
type Labels = (index: number, id: string) => { title: string; url: string };

export interface GeneratedSite {
  input: SiteInput;
  set: GeneratedSparseSet;
  tokenizer: TextTokenizer;
  /** The static query weight of each token id. */
  table: Float32Array;
  /** Each document's own token ids (its text, 256 tokens at most). */
  own: Set<number>[];
}

export async function generatedSiteInput(labels: Labels = () => ({ title: '', url: '' })): Promise<GeneratedSite> {
  const set = generatedSparseSet();
  const tokenizer = await loadTokenizer(createFolderSource(fixturePath('tokenizers/bert-base-uncased')));
  const random = new Random(3);
  const table = Float32Array.from({ length: set.vocab.length }, (_, id) => (id < 999 ? 0 : 0.3 + 2.5 * random.next()));
  const own = set.documents.map((d) => new Set(tokenizer.encode(d.text, { maxLength: 256 }).ids));
  const input: SiteInput = {
    modelName: 'generated vectors',
    k: 1,
    documentLength: 256,
    prune: 0,
    corpusName: 'generated',
    fingerprint: 'sha256:0',
    records: set.documents.map((d, i) => ({ id: d.id, text: d.text, ...labels(i, d.id), body: d.text })),
    vectors: set.documents.map((d) => d.vector),
    isOwn: (doc, id) => own[doc].has(id),
    queryWeights: table,
    tokenizer: queryTokenizerSpec(tokenizer, null, 'bert-base-uncased'),
  };
  return { input, set, tokenizer, table, own };
}

// Every path that builds a table keyed by tokens, words or ids, fed every vocabulary of the tests (bert-base-uncased,
// ModernBERT, which holds `constructor`, `toString` and `valueOf`) and a generated one holding every Object.prototype
// name and `__proto__`: each key comes out as an ordinary one with its own value, never Object.prototype's member
// (issue 42 item 1; the export formats have their own such test in retrieval-exports.test.ts). ESLint's
// no-restricted-syntax rule in eslint.config.js keeps `{}` from starting a string-keyed table in src/.
import { describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { queryTableFromIdfJson } from '../../../src/io/formats/idf-json.ts';
import type { TextTokenizer } from '../../../src/io/tokenizer/tokenizer.ts';
import { loadTokenizer } from '../../../src/io/tokenizer/tokenizer-load.ts';
import { createWordPieceTokenizer } from '../../../src/io/tokenizer/wordpiece.ts';
import { diffEncodings } from '../../../src/app/model/audit-diff.ts';
import { mlCommonsIdf } from '../../../src/app/model/opensearch-bundle.ts';
import { summarizeSparse } from '../../../src/app/model/sparse-summary.ts';
import { buildBm25, bm25Query } from '../../../src/retrieval/bm25.ts';
import { idfJson } from '../../../src/retrieval/idf-table.ts';
import { sparseFromEntries } from '../../../src/util/sparse-vector.ts';
import { fixturePath } from '../../helpers/fixtures.ts';

const PROTOTYPE_NAMES = [...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__'])];

/** The generated vocabulary: BERT's specials, every Object.prototype name, and a few words. */
const GENERATED = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...PROTOTYPE_NAMES, 'cat', 'dog'];

const VOCABULARIES: [string, () => Promise<TextTokenizer>][] = [
  ['bert-base-uncased', () => loadTokenizer(createFolderSource(fixturePath('tokenizers/bert-base-uncased')))],
  ['modernbert', () => loadTokenizer(createFolderSource(fixturePath('tokenizers/modernbert')))],
  ['Object.prototype names', async () => createWordPieceTokenizer(GENERATED.join('\n'), { lowercase: false })],
];

function specialsOf(tokenizer: TextTokenizer): Set<number> {
  return new Set(Object.values(tokenizer.specialIds).filter((id): id is number => id !== null));
}

/** Every id with a token, and a weight of its own (id-dependent, never 0). */
function tokensOf(tokenizer: TextTokenizer): { ids: number[]; tokens: string[]; weights: Float64Array } {
  const ids = Array.from({ length: tokenizer.vocabSize }, (_, id) => id).filter((id) => tokenizer.idToToken(id) !== undefined);
  const weights = new Float64Array(tokenizer.vocabSize);
  for (const id of ids) weights[id] = 1 + (id % 97) / 8;
  return { ids, tokens: ids.map((id) => tokenizer.idToToken(id)!), weights };
}

describe.each(VOCABULARIES)('the %s vocabulary through every token-keyed table', (_, open) => {
  it('the tokenizer maps every token, prototype names included, to its own id', async () => {
    const tokenizer = await open();
    const { ids, tokens } = tokensOf(tokenizer);
    expect(tokens.filter((token, i) => tokenizer.tokenToId(token) !== ids[i])).toEqual([]);
    for (const name of PROTOTYPE_NAMES)
      if (!tokens.includes(name)) expect(tokenizer.tokenToId(name), `${name} is no token here`).toBeUndefined();
  });

  it("idf.json (splade-lab idf) keeps every token's weight, and reads back into the same table", async () => {
    const tokenizer = await open();
    const { ids, weights } = tokensOf(tokenizer);
    const specials = specialsOf(tokenizer);
    const json = idfJson(weights, (id) => tokenizer.idToToken(id), specials);
    const kept = ids.filter((id) => !specials.has(id));
    expect(Object.keys(json)).toHaveLength(new Set(kept.map((id) => tokenizer.idToToken(id))).size);
    expect(kept.filter((id) => !Object.hasOwn(json, tokenizer.idToToken(id)!))).toEqual([]);
    const reread = queryTableFromIdfJson(JSON.parse(JSON.stringify(json)), tokenizer, 'idf.json');
    expect(kept.filter((id) => reread[id] !== Math.fround(weights[id]))).toEqual([]);
  });

  it("ml-commons' idf.json (export-opensearch --side query) keeps every text", async () => {
    const tokenizer = await open();
    const { ids, tokens, weights } = tokensOf(tokenizer);
    const texts = Array.from({ length: tokenizer.vocabSize }, (_, id) => tokenizer.idToToken(id) ?? '');
    const { idf } = mlCommonsIdf(Float32Array.from(weights), texts);
    const wrong = tokens.filter(
      (token, i) => !Object.hasOwn(idf, token) || typeof idf[token] !== 'number' || idf[token] < Math.fround(weights[ids[i]]),
    );
    expect(wrong).toEqual([]);
  });

  it("the audit's diff and the preview's summary name prototype tokens as tokens", async () => {
    const tokenizer = await open();
    const { ids, tokens } = tokensOf(tokenizer);
    const picked = ids.filter((id) => PROTOTYPE_NAMES.includes(tokens[ids.indexOf(id)])).concat(ids.slice(0, 5));
    const vector = sparseFromEntries(picked.map((id, i) => [id, 1 + i]));
    const vocab = Array.from({ length: tokenizer.vocabSize }, (_, id) => tokenizer.idToToken(id) ?? `[id ${id}]`);
    const empty = sparseFromEntries([]);
    const diff = diffEncodings(['t'], { vocab, vectors: [empty] }, { vocab, vectors: [vector] }, 1000);
    expect(diff.gained.map((g) => g.term).sort()).toEqual(picked.map((id) => vocab[id]).sort());
    for (const g of diff.gained) expect(typeof g.mass === 'number' && Number.isFinite(g.mass), g.term).toBe(true);
    const summary = summarizeSparse('t', vector, tokenizer, 1000);
    expect(summary.terms.map((t) => t.term).sort()).toEqual(picked.map((id) => vocab[id]).sort());
  });
});

describe('BM25 over texts made of Object.prototype names', () => {
  it('indexes and finds every name as a word', () => {
    const words = PROTOTYPE_NAMES.map((name) => name.toLowerCase());
    const documents = words.map((word) => `${word} cat`);
    const model = buildBm25(documents, (text) => text.split(' '));
    for (const word of words) {
      const query = bm25Query(model, word);
      expect(query.indices.length, word).toBe(1);
      expect(model.termIds.get(word), word).toBe(query.indices[0]);
    }
  });
});

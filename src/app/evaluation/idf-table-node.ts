// The idf table of a corpus file in Node (`splade-lab idf`, `--idf-from`): a BEIR corpus (folder or corpus.jsonl), a
// .jsonl or a .txt file read whole, tokenized by the model's tokenizer, weighted by retrieval/idf-table.ts.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readMlmDocuments } from '../../io/triplets/mlm-text.ts';
import { readRegularFile } from '../../io/regular-file-node.ts';
import type { TextTokenizer } from '../../io/tokenizer/tokenizer.ts';
import { documentFrequencyOf, idfJson, idfWeights } from '../../retrieval/idf-table.ts';
import { queryWeightsOf, type QueryWeights } from '../training/query-weights.ts';

export { IDF_FORMULA, smallIdfWarning } from '../../retrieval/idf-table.ts';

export interface IdfTable {
  /** Weight of every id (vocabulary size); 0 for an id in no document. */
  weights: Float64Array;
  /** OpenSearch's idf.json: token -> weight, special tokens left out, tokens in no document at 0. */
  json: Record<string, number>;
  /** Documents counted (blank ones skipped) and skipped. */
  documents: number;
  skipped: number;
  /** Ids found in at least one document. */
  tokensSeen: number;
}

/** Reads `path` (`option` names it in errors) and weighs every token of `tokenizer` by its idf over the documents. */
export async function idfTableOfCorpus(path: string, tokenizer: TextTokenizer, option = '--corpus'): Promise<IdfTable> {
  if ((await stat(path).catch(() => null))?.isDirectory()) path = join(path, 'corpus.jsonl');
  const { documents, skipped } = readMlmDocuments(await readRegularFile(path, { what: option }), path);
  const tokenized = documents.map((text) => tokenizer.encode(text, { addSpecialTokens: false }).ids);
  const { df, documents: count } = documentFrequencyOf(tokenized, tokenizer.vocabSize);
  const weights = idfWeights(df, count);
  const special = new Set(Object.values(tokenizer.specialIds).filter((id): id is number => id !== null));
  return {
    weights,
    json: idfJson(weights, (id) => tokenizer.idToToken(id), special),
    documents: count,
    skipped,
    tokensSeen: df.reduce((sum, n) => sum + (n > 0 ? 1 : 0), 0),
  };
}

/** An inference-free run's query weights from a corpus file (`train --inference-free --idf-from`). */
export async function corpusQueryWeights(path: string, tokenizer: TextTokenizer): Promise<QueryWeights> {
  const table = await idfTableOfCorpus(path, tokenizer, '--idf-from');
  return queryWeightsOf(table.weights, tokenizer, `idf over the ${table.documents} documents of ${path}`, table.documents);
}

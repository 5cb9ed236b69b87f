// Retrieval sets for evaluation, once for the page and the CLI: a BEIR folder (corpus.jsonl, queries.jsonl,
// qrels/<split>.tsv) wherever the platform finds its files.
import { loadBeir } from '../io/beir.ts';
import type { RetrievalDataset } from '../retrieval/dataset.ts';
import { filesRefName, type FilesRef, type Platform } from './platform.ts';

export type { RetrievalDataset } from '../retrieval/dataset.ts';

export async function openBeir(platform: Platform, ref: FilesRef, split = 'test'): Promise<RetrievalDataset> {
  return loadBeir(await platform.files(ref), split, filesRefName(ref));
}

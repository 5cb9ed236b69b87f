// A retrieval test collection in memory: documents, the queries to evaluate, and their judgments.
import type { Qrels } from './run-types.ts';

export interface RetrievalDataset {
  name: string;
  corpusIds: string[];
  /** Text the encoder sees for each document (BEIR: title + " " + text, trimmed). */
  corpusTexts: string[];
  queryIds: string[];
  queryTexts: string[];
  qrels: Qrels;
  /** Problems found while loading that did not stop it, each with its count. */
  warnings: string[];
}

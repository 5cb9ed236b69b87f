// A retrieval test collection in memory: documents, the queries to evaluate, and their judgments.
import type { Qrels } from './run-types.ts';

export interface RetrievalDataset {
  name: string;
  corpusIds: string[];
  /** Text the encoder sees for each document (BEIR: title + " " + text, trimmed). */
  corpusTexts: string[];
  /** Each document's title where its corpus gives titles ("" where a document has none); absent when none has one. */
  corpusTitles?: string[];
  queryIds: string[];
  queryTexts: string[];
  qrels: Qrels;
  /** Problems found while loading that did not stop it, each with its count. */
  warnings: string[];
}

/** The 13 NanoBEIR sets (zeta-alpha-ai/Nano<name> on the Hub; the paper's Figure 2 averages over them). */
export const NANOBEIR_SETS = [
  'ClimateFEVER',
  'DBPedia',
  'FEVER',
  'FiQA2018',
  'HotpotQA',
  'MSMARCO',
  'NFCorpus',
  'NQ',
  'QuoraRetrieval',
  'SCIDOCS',
  'ArguAna',
  'SciFact',
  'Touche2020',
] as const;

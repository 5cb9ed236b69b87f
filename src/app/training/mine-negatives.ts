// Hard negatives for a mining set, once for the CLI (and later the page): candidates retrieved exactly by the model's
// own sparse index (the encoding and search `eval` uses) or by BM25, chosen by sentence-transformers' rules
// (contract/training/hard-negatives.ts), written as rows of the chosen output format, with the report.
import { bm25Query, buildBm25 } from '../../retrieval/bm25.ts';
import { buildInvertedIndex, type InvertedIndex } from '../../retrieval/inverted-index.ts';
import { documentScore, searchAll } from '../../retrieval/search.ts';
import { wordAnalyzer } from '../../retrieval/word-analyzer.ts';
import {
  candidatePoolSize,
  selectNegatives,
  settleRules,
  type MiningRules,
  type SettledRules,
} from '../../contract/training/hard-negatives.ts';
import {
  miningReport,
  minedRows,
  type MinedRow,
  type MiningReport,
  type OutputFormat,
} from '../../contract/training/mined-rows.ts';
import type { MiningSet } from '../../contract/training/mining-set.ts';
import { maxSequenceTokens } from '../../contract/model/max-tokens.ts';
import { Random } from '../../util/random.ts';
import type { SparseVector } from '../../util/sparse-vector.ts';
import type { ModelSession } from '../model/model-session.ts';

export {
  firstTextBreakingTsv,
  formatMinedRows,
  minedFileKind,
  tsvFormatProblem,
  type MinedFileKind,
} from '../../io/triplets/mined-rows-text.ts';
export { minedRowsParquet, parquetFormatProblem } from '../../io/triplets/mined-rows-parquet.ts';

export const MINING_RETRIEVERS = ['model', 'bm25'] as const;
export type MiningRetriever = (typeof MINING_RETRIEVERS)[number];

/** BM25's settings for mining: `splade-lab bm25`'s (Anserini's BEIR defaults, words without English stop words). */
export const MINING_BM25 = { k1: 0.9, b: 0.4 } as const;

export interface MineRequest {
  retriever: MiningRetriever;
  rules: MiningRules;
  format: OutputFormat;
  /** The seed of sampling_strategy "random"'s draws. */
  seed: number;
  /** How the model encodes (retriever "model"): its head divided by k, lengths in tokens (capped at the model's). */
  encoding: { k: number; queryLength: number; documentLength: number };
}

export type MineProgress = (stage: 'queries' | 'documents' | 'bm25' | 'search', done: number, total: number) => void;

export interface MineResult {
  rows: MinedRow[];
  report: MiningReport;
  rules: SettledRules;
  warnings: string[];
}

/** Query and document vectors in one index's space. */
interface Retrieval {
  index: InvertedIndex;
  queries: SparseVector[];
  warnings: string[];
}

function bm25Retrieval(set: MiningSet, onProgress?: MineProgress): Retrieval {
  const model = buildBm25(set.documents, wordAnalyzer(), { ...MINING_BM25 }, (done, total) => onProgress?.('bm25', done, total));
  return { index: model.index, queries: set.queries.map((q) => bm25Query(model, q.text)), warnings: [] };
}

async function modelRetrieval(
  session: ModelSession,
  set: MiningSet,
  request: MineRequest,
  onProgress?: MineProgress,
): Promise<Retrieval> {
  const { k, queryLength, documentLength } = request.encoding;
  const max = maxSequenceTokens(session.model.config);
  const encoder = session.sparseEncoder(k, { query: Math.min(queryLength, max), document: Math.min(documentLength, max) });
  const queries = await encoder.encodeQueries(
    set.queries.map((q) => q.text),
    (done, total) => onProgress?.('queries', done, total),
  );
  const documents = await encoder.encodeDocuments(set.documents, (done, total) => onProgress?.('documents', done, total));
  const capped = queryLength > max || documentLength > max;
  return {
    index: buildInvertedIndex(documents, encoder.vocab.length),
    queries,
    warnings: capped ? [`lengths capped at ${max} tokens, the longest this model encodes (its position table ends there)`] : [],
  };
}

/**
 * Mines `set`: each query's range_max + (most positives) best candidates by exact search, its positives scored by the
 * same index, the rules applied query by query in order (one seeded generator for every draw), the rows and report.
 */
export async function mineNegatives(
  set: MiningSet,
  request: MineRequest,
  session: ModelSession | null,
  onProgress?: MineProgress,
): Promise<MineResult> {
  const maxPositives = set.queries.reduce((most, q) => Math.max(most, q.positives.length), 0);
  const rules = settleRules(request.rules, maxPositives);
  const poolSize = candidatePoolSize(rules, maxPositives);
  let retrieval: Retrieval;
  if (request.retriever === 'bm25') retrieval = bm25Retrieval(set, onProgress);
  else if (session) retrieval = await modelRetrieval(session, set, request, onProgress);
  else throw new Error('retrieval by the model needs a model session');
  const { rankings } = searchAll(retrieval.index, retrieval.queries, poolSize, (done, total) =>
    onProgress?.('search', done, total),
  );
  const random = new Random(request.seed);
  const positiveScores = set.queries.map((q, i) =>
    q.positives.map((doc) => documentScore(retrieval.index, retrieval.queries[i], doc)),
  );
  const selections = set.queries.map((q, i) =>
    selectNegatives(
      { docs: rankings[i].docs, scores: rankings[i].scores, positives: q.positives, positiveScores: positiveScores[i] },
      rules,
      random,
    ),
  );
  const rows = minedRows(request.format, set.queries, selections, rules.num_negatives);
  const report = miningReport(set.queries, selections, positiveScores, rules, poolSize, rows.length, request.format);
  return { rows, report, rules, warnings: retrieval.warnings };
}

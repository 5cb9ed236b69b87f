// `splade-lab bm25 --beir <dir>`: the lexical baseline on a BEIR folder, with trec_eval measures, index size and latency.
import { writeFile } from 'node:fs/promises';
import { loadBeir } from '../io/beir.ts';
import { formatRun } from '../io/trec.ts';
import { bm25Query, buildBm25 } from '../retrieval/bm25.ts';
import { retrieveAndEvaluate } from '../retrieval/evaluate.ts';
import { isSearchAlgorithm, searchAlgorithms } from '../retrieval/search.ts';
import { createFolderSource } from '../io/file-source-node.ts';
import { loadTokenizer } from '../io/tokenizer-load.ts';
import { idAnalyzer, wordAnalyzer, type Analyzer } from '../retrieval/word-analyzer.ts';
import { numberOption, parseArgs, stringOption, type Command } from './command.ts';

const usage = `usage: splade-lab bm25 --beir <dir> [--split test] [--top-k 1000] [--k1 0.9] [--b 0.4]
       [--run out.trec] [--json] [--tokenizer <dir>] [--search maxscore|exhaustive]
Indexes the corpus with BM25 over lower-cased words (stop words removed), or over the pieces of a model's
tokenizer with --tokenizer (special tokens left out), retrieves the top k per query, and prints
nDCG@10, MRR@10, Recall@100/1000, P@10 and MAP exactly as trec_eval computes them.
--search picks the exact top-k algorithm: exhaustive (term-at-a-time over every posting, default) or maxscore
(dynamic pruning); both return the same documents and scores.`;

const headline = ['ndcg_cut_10', 'recip_rank_10', 'recall_100', 'recall_1000', 'P_10', 'map'] as const;

export const bm25Command: Command = {
  summary: 'BM25 baseline on a BEIR folder (k1=0.9, b=0.4), evaluated with trec_eval measures',
  usage,
  async run(argv) {
    const args = parseArgs(argv, ['beir', 'split', 'top-k', 'k1', 'b', 'run', 'tokenizer', 'search'], ['json']);
    if (args.positional.length) throw new Error(`unexpected argument "${args.positional[0]}"\n${usage}`);
    const beirDir = stringOption(args, 'beir');
    if (!beirDir) throw new Error(`--beir <dir> is required\n${usage}`);
    const split = stringOption(args, 'split') ?? 'test';
    const topK = numberOption(args, 'top-k', 1000);
    const params = { k1: numberOption(args, 'k1', 0.9), b: numberOption(args, 'b', 0.4) };
    const json = args.options.has('json');
    const search = stringOption(args, 'search') ?? 'exhaustive';
    if (!isSearchAlgorithm(search)) throw new Error(`--search must be one of ${searchAlgorithms.join(', ')}, got "${search}"\n${usage}`);

    const t0 = performance.now();
    const dataset = await loadBeir(createFolderSource(beirDir), split, beirDir);
    const t1 = performance.now();
    const tokenizerDir = stringOption(args, 'tokenizer');
    const analyzer = tokenizerDir ? await tokenizerAnalyzer(tokenizerDir) : wordAnalyzer();
    const model = buildBm25(dataset.corpusTexts, analyzer, params);
    const t2 = performance.now();
    const queries = dataset.queryTexts.map((text) => bm25Query(model, text));
    const report = retrieveAndEvaluate(model.index, queries, dataset, { topK, search });
    const runPath = stringOption(args, 'run');
    if (runPath) await writeFile(runPath, formatRun(report.run, 'splade-lab-bm25'));
    const timingsMs: Record<string, number> = { load: t1 - t0, index: t2 - t1, ...report.timingsMs, total: performance.now() - t0 };

    for (const warning of report.warnings) process.stderr.write(`warning: ${warning}\n`);
    if (json) {
      const summary = { ...report.metrics, index: report.index, latency: report.latency, timingsMs, params, split, topK, warnings: report.warnings };
      process.stdout.write(JSON.stringify(summary) + '\n');
      return 0;
    }
    const lines = [
      `BM25 (k1=${params.k1}, b=${params.b}) on ${beirDir} [${split}]: ${dataset.queryIds.length} queries, ${dataset.corpusIds.length} documents`,
      ...headline.map((name) => `${name.padEnd(14)} ${report.metrics[name].toFixed(4)}`),
      `index          ${report.index.postings} postings over ${report.index.dimension} terms, ${(report.index.memoryBytes / 2 ** 20).toFixed(2)} MiB`,
      `latency        mean ${report.latency.meanMs.toFixed(3)} ms, p95 ${report.latency.p95Ms.toFixed(3)} ms per query (${report.latency.algorithm}, ${report.latency.meanFullyScoredDocs.toFixed(1)} documents fully scored per query)`,
      `time           load ${(timingsMs.load / 1000).toFixed(2)} s, index ${(timingsMs.index / 1000).toFixed(2)} s, search ${(timingsMs.search / 1000).toFixed(2)} s, total ${(timingsMs.total / 1000).toFixed(2)} s`,
    ];
    if (runPath) lines.push(`run written to ${runPath}`);
    process.stdout.write(lines.join('\n') + '\n');
    return 0;
  },
};

/** BM25 terms = the tokenizer's piece ids of the text, without [CLS]/[SEP] and without truncation. */
async function tokenizerAnalyzer(dir: string): Promise<Analyzer> {
  const tokenizer = await loadTokenizer(createFolderSource(dir));
  return idAnalyzer((text) => tokenizer.encode(text, { addSpecialTokens: false }).ids);
}

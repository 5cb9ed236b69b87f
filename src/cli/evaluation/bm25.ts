// `splade-lab bm25 --beir <dir>`: argument adapter over evaluateBm25, the lexical baseline on a BEIR folder with
// trec_eval measures, index size and latency.
import { openDataset } from '../../app/evaluation/datasets.ts';
import { evaluateBm25, formatTrecRun, tokenizerAnalyzer } from '../../app/evaluation/bm25-baseline.ts';
import { HEADLINE_MEASURES } from '../../app/evaluation/evaluate-on-set.ts';
import { folderRef, nodePlatform } from '../../app/platform/platform-node.ts';
import { printable } from '../../util/printable.ts';
import type { Command } from '../command.ts';
import { checkOutputPath, inputsOf, writeOutputFile } from '../output-file.ts';
import { searchAlgorithmOption } from './search-option.ts';

export const bm25Command: Command = {
  spec: {
    name: 'bm25',
    summary: 'BM25 baseline on a BEIR folder (k1=0.9, b=0.4), evaluated with trec_eval measures',
    options: {
      beir: { value: 'dir', help: 'a BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv)', required: true },
      split: { value: 'name', help: 'qrels split', default: 'test' },
      'top-k': { value: 'N', help: 'documents retrieved per query', default: '1000' },
      k1: { value: 'K1', help: 'BM25 term-frequency saturation', default: '0.9' },
      b: { value: 'B', help: 'BM25 length normalisation', default: '0.4' },
      run: { value: 'file', help: 'also write the TREC run' },
      tokenizer: { value: 'dir', help: "index a model tokenizer's pieces instead of words" },
      search: {
        value: 'exhaustive|maxscore',
        help: 'exact top-k algorithm (same documents and score bits)',
        default: 'exhaustive',
      },
      json: { help: 'print one JSON object' },
    },
    notes:
      "Indexes lower-cased words (English stop words removed), or the pieces of a model's tokenizer with --tokenizer\n" +
      '(special tokens left out), retrieves the top k per query, and prints nDCG@10, MRR@10, Recall@100/1000, P@10 and\n' +
      'MAP exactly as trec_eval computes them. exhaustive is term-at-a-time over every posting; maxscore prunes dynamically.',
  },
  async run(args) {
    const beirDir = args.required('beir');
    const split = args.string('split')!;
    const topK = args.numberOrDefault('top-k');
    const params = { k1: args.numberOrDefault('k1'), b: args.numberOrDefault('b') };
    const search = searchAlgorithmOption(args);
    const runPath = args.string('run');
    if (runPath) await checkOutputPath(runPath, '--run', inputsOf(args, 'beir'));
    const t0 = performance.now();
    const dataset = await openDataset(nodePlatform, { kind: 'beir', files: folderRef(beirDir), split, name: beirDir });
    const loadMs = performance.now() - t0;
    const tokenizerDir = args.string('tokenizer');
    const analyzer = tokenizerDir ? await tokenizerAnalyzer(nodePlatform, folderRef(tokenizerDir)) : undefined;
    const report = evaluateBm25(dataset, { params, topK, search, analyzer });
    if (runPath) await writeOutputFile(runPath, formatTrecRun(report.run, 'splade-lab-bm25'), '--run');
    const timingsMs: Record<string, number> = { load: loadMs, ...report.timingsMs, total: performance.now() - t0 };

    for (const warning of report.warnings) process.stderr.write(`warning: ${printable(warning)}\n`);
    if (args.flag('json')) {
      const summary = {
        ...report.metrics,
        index: report.index,
        latency: report.latency,
        timingsMs,
        params,
        split,
        topK,
        warnings: report.warnings,
      };
      process.stdout.write(JSON.stringify(summary) + '\n');
      return 0;
    }
    const lines = [
      `BM25 (k1=${params.k1}, b=${params.b}) on ${beirDir} [${split}]: ${dataset.queryIds.length} queries, ${dataset.corpusIds.length} documents`,
      ...HEADLINE_MEASURES.map((name) => `${name.padEnd(14)} ${report.metrics[name].toFixed(4)}`),
      `index          ${report.index.postings} postings over ${report.index.dimension} terms, ${(report.index.memoryBytes / 2 ** 20).toFixed(2)} MiB`,
      `latency        mean ${report.latency.meanMs.toFixed(3)} ms, p95 ${report.latency.p95Ms.toFixed(3)} ms per query (${report.latency.algorithm}, ${report.latency.meanFullyScoredDocs.toFixed(1)} documents fully scored per query)`,
      `time           load ${(timingsMs.load / 1000).toFixed(2)} s, index ${(timingsMs.index / 1000).toFixed(2)} s, search ${(timingsMs.search / 1000).toFixed(2)} s, total ${(timingsMs.total / 1000).toFixed(2)} s`,
    ];
    if (runPath) lines.push(`run written to ${runPath}`);
    process.stdout.write(lines.join('\n') + '\n');
    return 0;
  },
};

// `splade-lab eval --model <dir> --beir <dir>`: encode a BEIR set with a SPLADE model on the GPU, retrieve exactly,
// and report trec_eval measures, sparsity (active dimensions, avg_flops), index size and latency.
import { writeFile } from 'node:fs/promises';
import { loadBeir } from '../io/beir.ts';
import { createFolderSource } from '../io/file-source-node.ts';
import { formatRun } from '../io/trec.ts';
import { evaluateEncoder } from '../retrieval/evaluate.ts';
import { isSearchAlgorithm, searchAlgorithms } from '../retrieval/search.ts';
import { asSparseEncoder } from '../model/splade-encoder.ts';
import { numberOption, parseArgs, stringOption, type Command } from './command.ts';
import { openGpuSession } from './gpu-session.ts';

const usage = `usage: splade-lab eval --model <dir-or-hub-id> --beir <dir> [--split test] [--top-k 1000] [--run out.trec]
       [--json] [--k 1] [--query-length 64] [--doc-length 256] [--batch 8] [--prune 0] [--search exhaustive|maxscore]`;

const headline = ['ndcg_cut_10', 'recip_rank_10', 'recall_100', 'recall_1000', 'P_10', 'map'] as const;

export const evalCommand: Command = {
  summary: 'evaluate a SPLADE model on a BEIR folder (GPU encoding, exact retrieval, trec_eval measures)',
  usage,
  async run(argv) {
    const args = parseArgs(argv, ['model', 'beir', 'split', 'top-k', 'run', 'k', 'query-length', 'doc-length', 'batch', 'prune', 'search'], ['json']);
    const modelArg = stringOption(args, 'model');
    const beirDir = stringOption(args, 'beir');
    if (!modelArg || !beirDir || args.positional.length) throw new Error(usage);
    const split = stringOption(args, 'split') ?? 'test';
    const search = stringOption(args, 'search') ?? 'exhaustive';
    if (!isSearchAlgorithm(search)) throw new Error(`--search must be one of ${searchAlgorithms.join(', ')}, got "${search}"`);
    const dataset = await loadBeir(createFolderSource(beirDir), split, beirDir);
    const session = await openGpuSession(modelArg, { k: numberOption(args, 'k', 1), batchSize: numberOption(args, 'batch', 8) });
    try {
      const encoder = asSparseEncoder(
        session.encoder,
        { query: numberOption(args, 'query-length', 64), document: numberOption(args, 'doc-length', 256) },
        numberOption(args, 'prune', 0),
      );
      const json = args.options.has('json');
      const report = await evaluateEncoder(encoder, dataset, {
        topK: numberOption(args, 'top-k', 1000),
        search,
        onProgress: json ? undefined : (stage, done, total) => process.stderr.write(`\r${stage} ${done}/${total}   `),
      });
      if (!json) process.stderr.write('\n');
      const runPath = stringOption(args, 'run');
      if (runPath) await writeFile(runPath, formatRun(report.run, 'splade-lab'));
      for (const warning of report.warnings) process.stderr.write(`warning: ${warning}\n`);
      if (json) {
        const { metrics, efficiency, index, latency, timingsMs, warnings } = report;
        process.stdout.write(JSON.stringify({ ...metrics, efficiency, index, latency, timingsMs, split, warnings }) + '\n');
        return 0;
      }
      const e = report.efficiency;
      process.stdout.write(
        [
          `${session.loaded.config.hfArchitecture} on ${beirDir} [${split}]: ${dataset.queryIds.length} queries, ${dataset.corpusIds.length} documents`,
          ...headline.map((name) => `${name.padEnd(14)} ${(report.metrics[name] ?? NaN).toFixed(4)}`),
          `active dims    queries ${e.query_active_dims.toFixed(1)}, documents ${e.corpus_active_dims.toFixed(1)}; avg_flops ${e.avg_flops.toFixed(3)}`,
        ].join('\n') + '\n',
      );
      return 0;
    } finally {
      session.close();
    }
  },
};

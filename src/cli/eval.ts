// `splade-lab eval --model <m> --beir <dir>`: argument adapter over evaluateModel: GPU encoding, exact retrieval,
// trec_eval measures, sparsity (active dimensions, avg_flops), index size and latency.
import { writeFile } from 'node:fs/promises';
import { openBeir } from '../app/datasets.ts';
import { HEADLINE_MEASURES, evaluateModel, formatTrecRun } from '../app/evaluate.ts';
import { folderRef, nodePlatform } from '../app/platform-node.ts';
import { EVAL_DEFAULTS } from '../app/requests.ts';
import { searchAlgorithmOption } from './search-option.ts';
import type { Command } from './command.ts';
import { withModelSession } from './model-session.ts';

export const evalCommand: Command = {
  spec: {
    name: 'eval',
    summary: 'evaluate a SPLADE model on a BEIR folder (GPU encoding, exact retrieval, trec_eval measures)',
    options: {
      model: { value: 'dir-or-hub-id', help: 'a SPLADE or MLM model folder, or a Hub id', required: true },
      beir: { value: 'dir', help: 'a BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv)', required: true },
      split: { value: 'name', help: 'qrels split', default: 'test' },
      'top-k': { value: 'N', help: 'documents retrieved per query', default: String(EVAL_DEFAULTS.topK) },
      run: { value: 'file', help: 'also write the TREC run' },
      k: { value: 'K', help: 'divide the MLM head by k first', default: String(EVAL_DEFAULTS.k) },
      'query-length': { value: 'T', help: 'tokens per query', default: String(EVAL_DEFAULTS.queryLength) },
      'doc-length': { value: 'T', help: 'tokens per document', default: String(EVAL_DEFAULTS.documentLength) },
      batch: { value: 'B', help: 'texts per GPU batch', default: '8' },
      prune: { value: 'N', help: "keep each vector's N largest weights (0: all)", default: '0' },
      search: { value: 'exhaustive|maxscore', help: 'exact top-k algorithm', default: EVAL_DEFAULTS.search },
      json: { help: 'print one JSON object' },
    },
  },
  async run(args) {
    const beirDir = args.required('beir');
    const split = args.string('split')!;
    const request = {
      k: args.numberOr('k', EVAL_DEFAULTS.k),
      queryLength: args.numberOr('query-length', EVAL_DEFAULTS.queryLength),
      documentLength: args.numberOr('doc-length', EVAL_DEFAULTS.documentLength),
      topK: args.numberOr('top-k', EVAL_DEFAULTS.topK),
      prune: args.numberOr('prune', EVAL_DEFAULTS.prune),
      search: searchAlgorithmOption(args),
    };
    const dataset = await openBeir(nodePlatform, folderRef(beirDir), split);
    const json = args.flag('json');
    const progress = json ? undefined : (stage: string, done: number, total: number) => process.stderr.write(`\r${stage} ${done}/${total}   `);
    const { report, architecture } = await withModelSession(args.required('model'), 'eval', { batchSize: args.numberOr('batch', 8) }, async (session) => ({
      report: await evaluateModel(session, dataset, request, progress),
      architecture: session.model.config.hfArchitecture,
    }));
    if (!json) process.stderr.write('\n');
    const runPath = args.string('run');
    if (runPath) await writeFile(runPath, formatTrecRun(report.run, 'splade-lab'));
    for (const warning of report.warnings) process.stderr.write(`warning: ${warning}\n`);
    if (json) {
      const { metrics, efficiency, index, latency, timingsMs, warnings } = report;
      process.stdout.write(JSON.stringify({ ...metrics, efficiency, index, latency, timingsMs, split, warnings }) + '\n');
      return 0;
    }
    const e = report.efficiency;
    process.stdout.write(
      [
        `${architecture} on ${beirDir} [${split}]: ${dataset.queryIds.length} queries, ${dataset.corpusIds.length} documents`,
        ...HEADLINE_MEASURES.map((name) => `${name.padEnd(14)} ${(report.metrics[name] ?? NaN).toFixed(4)}`),
        `active dims    queries ${e.query_active_dims.toFixed(1)}, documents ${e.corpus_active_dims.toFixed(1)}; avg_flops ${e.avg_flops.toFixed(3)}`,
      ].join('\n') + '\n',
    );
    return 0;
  },
};

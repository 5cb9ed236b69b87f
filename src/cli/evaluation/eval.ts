// `splade-lab eval --model <m> --beir <dir> | --nanobeir <name|all>`: argument adapter over evaluateOnSet: GPU
// encoding, exact retrieval, trec_eval measures, sparsity (active dimensions, avg_flops), index size and latency;
// several NanoBEIR sets are evaluated one after another and averaged.
import { totalmem } from 'node:os';
import { nanoBeirSelection, openDataset, type DatasetRef } from '../../app/evaluation/datasets.ts';
import { formatTrecRun, type Run } from '../../app/evaluation/bm25-baseline.ts';
import { HEADLINE_MEASURES, evaluateOnSet, meanMetrics, type SetEvaluation } from '../../app/evaluation/evaluate-on-set.ts';
import { folderRef, nodePlatform } from '../../app/platform/platform-node.ts';
import { EVAL_DEFAULTS } from '../../contract/limits.ts';
import { type EvalRequest } from '../../contract/evaluation/evaluation-request.ts';
import { printable } from '../../util/printable.ts';
import { UsageError, type Args, type Command } from '../command.ts';
import { QUERY_MODEL_OPTION, withModelSession } from '../model/model-session.ts';
import { checkOutputPath, inputsOf, writeOutputFile } from '../output-file.ts';
import { searchAlgorithmOption } from './search-option.ts';

function datasetRefs(args: Args): DatasetRef[] {
  const beir = args.string('beir');
  const nano = args.string('nanobeir');
  if ((beir === undefined) === (nano === undefined))
    throw new UsageError('give --beir <dir> or --nanobeir <name|all>, one of them');
  if (beir !== undefined) return [{ kind: 'beir', files: folderRef(beir), split: args.string('split'), name: beir }];
  return nanoBeirSelection(nano!).map((set) => ({ kind: 'nanobeir', set, hubUrl: process.env.SPLADE_LAB_HUB_URL }));
}

function requestFrom(args: Args): EvalRequest {
  return {
    k: args.numberOrDefault('k'),
    queryLength: args.numberOrDefault('query-length'),
    documentLength: args.numberOrDefault('doc-length'),
    topK: args.numberOrDefault('top-k'),
    prune: args.numberOrDefault('prune'),
    search: searchAlgorithmOption(args),
  };
}

function jsonOf(e: SetEvaluation, split: string | undefined) {
  const { metrics, efficiency, index, latency, timingsMs } = e.splade;
  return {
    ...metrics,
    efficiency,
    index,
    latency,
    timingsMs,
    documentsPerSecond: e.splade.documentsPerSecond,
    ...(split ? { split } : {}),
    warnings: e.warnings,
  };
}

function textOf(e: SetEvaluation): string {
  const x = e.splade.efficiency;
  return [
    `${e.model.architecture} on ${e.set.name}: ${e.set.queries} queries, ${e.set.documents} documents (k = ${e.request.k})`,
    ...HEADLINE_MEASURES.map((name) => `${name.padEnd(14)} ${(e.splade.metrics[name] ?? NaN).toFixed(4)}`),
    `active dims    queries ${x.query_active_dims.toFixed(1)}, documents ${x.corpus_active_dims.toFixed(1)}; avg_flops ${x.avg_flops.toFixed(3)}`,
    `throughput     ${e.splade.documentsPerSecond.toFixed(1)} documents/s; index ${(e.splade.index.memoryBytes / 2 ** 20).toFixed(2)} MiB`,
  ].join('\n');
}

export const evalCommand: Command = {
  spec: {
    name: 'eval',
    summary: 'evaluate a SPLADE model on a BEIR folder or NanoBEIR sets (GPU encoding, exact retrieval, trec_eval measures)',
    options: {
      model: { value: 'dir-or-hub-id', help: 'a SPLADE or MLM model folder, or a Hub id', required: true },
      ...QUERY_MODEL_OPTION,
      beir: { value: 'dir', help: 'a BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv)' },
      nanobeir: { value: 'name,...|all', help: 'NanoBEIR sets from the Hub (zeta-alpha-ai/Nano<name>), averaged when several' },
      split: { value: 'name', help: 'qrels split of a BEIR folder', default: 'test' },
      'top-k': { value: 'N', help: 'documents retrieved per query', default: String(EVAL_DEFAULTS.topK) },
      run: { value: 'file', help: 'also write the TREC run (one set only)' },
      k: { value: 'K', help: 'divide the MLM head by k first', default: String(EVAL_DEFAULTS.k) },
      'query-length': { value: 'T', help: 'tokens per query', default: String(EVAL_DEFAULTS.queryLength) },
      'doc-length': { value: 'T', help: 'tokens per document', default: String(EVAL_DEFAULTS.documentLength) },
      batch: { value: 'B', help: 'texts per GPU batch', default: '8' },
      prune: { value: 'N', help: "keep each vector's N largest weights (0: all)", default: '0' },
      search: { value: 'exhaustive|maxscore', help: 'exact top-k algorithm', default: EVAL_DEFAULTS.search },
      json: { help: 'print one JSON object' },
    },
    notes:
      "SPLADE_LAB_HUB_URL points --nanobeir at a Hub mirror. An evaluation that would not fit half of this machine's memory is refused before the corpus is encoded.",
  },
  async run(args) {
    const refs = datasetRefs(args);
    const runPath = args.string('run');
    if (runPath && refs.length > 1) throw new UsageError("--run writes one set's run: evaluate one NanoBEIR set at a time");
    if (runPath) await checkOutputPath(runPath, '--run', inputsOf(args, 'model', 'query-model', 'beir'));
    const request = requestFrom(args);
    const json = args.flag('json');
    const split = refs[0].kind === 'beir' ? refs[0].split : undefined;
    const results: { evaluation: SetEvaluation; run: Run }[] = [];
    await withModelSession(
      args.required('model'),
      'eval',
      { batchSize: args.numberOrDefault('batch'), queryModel: args.string('query-model') },
      async (session) => {
        for (const ref of refs) {
          const dataset = await openDataset(nodePlatform, ref);
          const onProgress = json
            ? undefined
            : (stage: string, done: number, total: number) =>
                process.stderr.write(`\r${dataset.name}: ${stage} ${done}/${total}   `);
          const { result, run } = await evaluateOnSet(session, dataset, request, { onProgress, memoryBudget: totalmem() / 2 });
          if (!json) process.stderr.write('\n');
          for (const warning of result.warnings) process.stderr.write(`warning: ${dataset.name}: ${printable(warning)}\n`);
          results.push({ evaluation: result, run });
        }
      },
    );
    if (runPath) await writeOutputFile(runPath, formatTrecRun(results[0].run, 'splade-lab'), '--run');
    const evaluations = results.map((r) => r.evaluation);
    if (json) {
      const out =
        evaluations.length === 1
          ? jsonOf(evaluations[0], split)
          : {
              mean: meanMetrics(evaluations.map((e) => e.splade.metrics)),
              sets: evaluations.map((e) => ({ name: e.set.name, ...jsonOf(e, undefined) })),
            };
      process.stdout.write(JSON.stringify(out) + '\n');
      return 0;
    }
    process.stdout.write(evaluations.map(textOf).join('\n\n') + '\n');
    if (evaluations.length > 1) {
      const mean = meanMetrics(evaluations.map((e) => e.splade.metrics));
      process.stdout.write(
        `\nmean over ${evaluations.length} sets\n${HEADLINE_MEASURES.map((name) => `${name.padEnd(14)} ${mean[name].toFixed(4)}`).join('\n')}\n`,
      );
    }
    return 0;
  },
};

// `splade-lab metrics --qrels <file> --run <file> [--json]`: trec_eval's measures for a TREC run.
import { readFile } from 'node:fs/promises';
import { parseQrels, parseRun } from '../io/trec.ts';
import { evaluateRun } from '../retrieval/metrics/evaluate-run.ts';
import { formatTrecEval } from '../retrieval/metrics/format-trec-eval.ts';
import { numberOption, parseArgs, stringOption, type Command } from './command.ts';

const usage = `usage: splade-lab metrics --qrels <file> --run <file> [--json] [--per-query]
       [--relevance-level 1] [--max-docs N] [--judged-only] [--complete]
Prints trec_eval's measures (same names, same values); --json prints one object of the "all" row.`;

async function readRequired(path: string | undefined, option: string): Promise<string> {
  if (!path) throw new Error(`--${option} <file> is required\n${usage}`);
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read --${option} ${path}: ${(error as Error).message}`);
  }
}

export const metricsCommand: Command = {
  summary: 'trec_eval measures (nDCG@k, MRR@k, Recall@k, P@k, MAP, ...) of a TREC run against qrels',
  usage,
  async run(argv) {
    const args = parseArgs(argv, ['qrels', 'run', 'relevance-level', 'max-docs'], ['json', 'per-query', 'judged-only', 'complete']);
    if (args.positional.length) throw new Error(`unexpected argument "${args.positional[0]}"\n${usage}`);
    const qrelsPath = stringOption(args, 'qrels');
    const runPath = stringOption(args, 'run');
    const qrels = parseQrels(await readRequired(qrelsPath, 'qrels'), qrelsPath);
    const { run, runId } = parseRun(await readRequired(runPath, 'run'), runPath);
    const evaluation = evaluateRun(qrels, run, {
      relevanceLevel: numberOption(args, 'relevance-level', 1),
      maxDocsPerQuery: numberOption(args, 'max-docs', Number.MAX_SAFE_INTEGER),
      judgedOnly: args.options.has('judged-only'),
      complete: args.options.has('complete'),
    });
    if (evaluation.runQueriesWithoutQrels.length) {
      process.stderr.write(`warning: ${evaluation.runQueriesWithoutQrels.length} run queries have no judgments and were ignored\n`);
    }
    if (evaluation.qrelsQueriesWithoutRun.length) {
      const what = args.options.has('complete') ? 'scored as empty rankings' : 'left out of the averages (use --complete to count them as zeros)';
      process.stderr.write(`warning: ${evaluation.qrelsQueriesWithoutRun.length} judged queries have no results and were ${what}\n`);
    }
    if (args.options.has('json')) {
      process.stdout.write(JSON.stringify(Object.fromEntries(evaluation.summary)) + '\n');
    } else {
      process.stdout.write(formatTrecEval(evaluation, { perQuery: args.options.has('per-query'), runId }));
    }
    return 0;
  },
};

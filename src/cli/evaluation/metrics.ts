// `splade-lab metrics --qrels <file> --run <file>`: argument adapter over scoreRun: trec_eval's measures of a TREC run.
import { formatTrecEval, scoreRun } from '../../app/evaluation/trec-scoring.ts';
import { printable } from '../../util/printable.ts';
import type { Args, Command } from '../command.ts';
import { readInputFile } from '../input-file.ts';

async function readOption(args: Args, option: string): Promise<{ content: Uint8Array; name: string }> {
  const name = args.required(option);
  return { content: await readInputFile(option, name), name };
}

export const metricsCommand: Command = {
  spec: {
    name: 'metrics',
    summary: 'trec_eval measures (nDCG@k, MRR@k, Recall@k, P@k, MAP, ...) of a TREC run against qrels',
    options: {
      qrels: { value: 'file', help: 'TREC qrels (query 0 doc relevance)', required: true },
      run: { value: 'file', help: 'TREC run (query Q0 doc rank score tag)', required: true },
      json: { help: 'print one JSON object of the "all" row' },
      'per-query': { help: "print every query's measures too (trec_eval -q)" },
      'relevance-level': { value: 'N', help: 'smallest relevance that counts as relevant (trec_eval -l)', default: '1' },
      'max-docs': { value: 'N', help: 'evaluate only the first N documents of each ranking (trec_eval -M)' },
      'judged-only': { help: 'drop unjudged documents before ranking (trec_eval -J)' },
      complete: { help: 'average over every judged query, missing ones as zeros (trec_eval -c)' },
    },
    notes: "Prints trec_eval's measures: same names, same values.",
  },
  async run(args) {
    const qrels = await readOption(args, 'qrels');
    const run = await readOption(args, 'run');
    const scored = scoreRun(qrels, run, {
      relevanceLevel: args.numberOrDefault('relevance-level'),
      maxDocsPerQuery: args.number('max-docs'),
      judgedOnly: args.flag('judged-only'),
      complete: args.flag('complete'),
    });
    for (const warning of scored.warnings) process.stderr.write(`warning: ${printable(warning)}\n`);
    if (args.flag('json')) process.stdout.write(JSON.stringify(Object.fromEntries(scored.evaluation.summary)) + '\n');
    else process.stdout.write(formatTrecEval(scored.evaluation, { perQuery: args.flag('per-query'), runId: scored.runId }));
    return 0;
  },
};

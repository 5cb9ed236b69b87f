// trec_eval on files, once for the page and the CLI: a TREC run scored against qrels, with the warnings trec_eval
// users expect (queries without judgments, judged queries without results).
import { parseQrels, parseRun } from '../../io/beir/trec.ts';
import { evaluateRun, type EvaluateRunOptions } from '../../retrieval/metrics/evaluate-run.ts';
import { type RunEvaluation } from '../../contract/evaluation/results.ts';

export interface ScoredRun {
  evaluation: RunEvaluation;
  runId: string;
  warnings: string[];
}

/** `content`: the file's bytes (decoded strictly as UTF-8) or its text. */
export function scoreRun(
  qrels: { content: string | Uint8Array; name: string },
  run: { content: string | Uint8Array; name: string },
  options: EvaluateRunOptions = {},
): ScoredRun {
  const parsedQrels = parseQrels(qrels.content, qrels.name);
  const parsedRun = parseRun(run.content, run.name);
  const evaluation = evaluateRun(parsedQrels, parsedRun.run, options);
  const warnings: string[] = [];
  if (evaluation.runQueriesWithoutQrels.length)
    warnings.push(`${evaluation.runQueriesWithoutQrels.length} run queries have no judgments and were ignored`);
  if (evaluation.qrelsQueriesWithoutRun.length) {
    const what = options.complete
      ? 'scored as empty rankings'
      : 'left out of the averages (use --complete to count them as zeros)';
    warnings.push(`${evaluation.qrelsQueriesWithoutRun.length} judged queries have no results and were ${what}`);
  }
  return { evaluation, runId: parsedRun.runId, warnings };
}

export { formatTrecEval } from '../../retrieval/metrics/format-trec-eval.ts';

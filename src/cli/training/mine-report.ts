// The report of `splade-lab mine` in words: rows against the most there could be, how many queries got fewer negatives
// than asked and each cause's share, the candidates each rule took out (sentence-transformers' "Skipped" lines), scores.
import type { SettledRules } from '../../contract/training/hard-negatives.ts';
import type { MiningReport, ShortfallCause } from '../../contract/training/mined-rows.ts';

/** Short queries named in the text report (--json lists every one). */
const NAMED = 10;

const plural = (n: number, word: string) => `${n} ${n === 1 ? word : word === 'query' ? 'queries' : `${word}s`}`;

/** What each cause means, in the words of its option. */
function causeText(cause: ShortfallCause, rules: SettledRules, report: MiningReport, documents: number): string {
  switch (cause) {
    case 'retrieval':
      return (
        `retrieval found fewer than the ${report.poolSize} candidates looked for (range_max + the most positives a query has; ` +
        `the corpus holds ${plural(documents, 'document')}, and a sparse index ranks only documents sharing a term with the query)`
      );
    case 'positive':
      return 'their positives were among the candidates (never a negative)';
    case 'absolute_margin':
      return `absolute_margin ${rules.absolute_margin} took out candidates scoring above the query's lowest positive score - ${rules.absolute_margin}`;
    case 'relative_margin':
      return `relative_margin ${rules.relative_margin} took out candidates scoring above ${1 - rules.relative_margin!} x the query's lowest positive score`;
    case 'max_score':
      return `max_score ${rules.max_score} took out candidates scoring above it`;
    case 'min_score':
      return `min_score ${rules.min_score} took out candidates scoring below it`;
    case 'range_min':
      return `range_min ${rules.range_min} skipped the best candidates left`;
  }
}

function scores(s: MiningReport['positiveScores']): string {
  return s.count ? `mean ${s.mean.toPrecision(4)} (${s.min.toPrecision(4)} to ${s.max.toPrecision(4)})` : 'none';
}

/** The report's lines; `documents`: the corpus's size, as mined. */
export function miningReportLines(
  report: MiningReport,
  rules: SettledRules,
  context: { retriever: string; format: string; documents: number },
): string[] {
  const n = rules.num_negatives;
  const lines = [
    `mined with ${context.retriever === 'model' ? "the model's sparse index" : 'BM25'} for ${plural(report.queries, 'query')} ` +
      `(num_negatives ${n}, range_min ${rules.range_min}, range_max ${rules.range_max}, sampling ${rules.sampling_strategy}` +
      `${rules.include_positives ? ', include_positives: positives kept among the candidates' : ''}): ` +
      `${plural(report.rows, 'row')} (${context.format}) of at most ${report.possibleRows}`,
    `${plural(report.full, 'query')} got ${plural(n, 'negative')}; ${report.short} got fewer (${report.none} none)` +
      (report.short ? ', because' : ''),
  ];
  for (const [cause, { queries, candidates }] of Object.entries(report.causes) as [
    ShortfallCause,
    MiningReport['causes'][ShortfallCause],
  ][]) {
    if (queries === 0) continue;
    const taken = cause === 'retrieval' ? '' : `, ${plural(candidates, 'candidate')}`;
    lines.push(`  ${causeText(cause, rules, report, context.documents)}: ${plural(queries, 'query')}${taken}`);
  }
  if (report.short) {
    const named = report.shortQueries
      .slice(0, NAMED)
      .map((q) => `${q.name} (${q.got} of ${n}: ${q.causes.join(', ') || 'no cause found'})`)
      .join(', ');
    lines.push(`  queries: ${named}${report.short > NAMED ? `, and ${report.short - NAMED} more (--json lists them)` : ''}`);
  }
  for (const [rule, { candidates, share }] of Object.entries(report.removed)) {
    if (rule === 'positive' || candidates === 0) continue;
    const value = rules[rule as keyof SettledRules];
    lines.push(
      `skipped ${plural(candidates, 'potential negative')} (${(100 * share).toFixed(2)}% of the ${report.retrieved} retrieved) due to the ${rule} of ${value}`,
    );
  }
  lines.push(`scores: positives ${scores(report.positiveScores)}; negatives ${scores(report.negativeScores)}`);
  return lines;
}

// `splade-lab mine --beir <dir> | --corpus ... (--queries --qrels | --pairs) --out <file>`: argument adapter over
// mineNegatives: hard negatives retrieved by the model's own sparse index or BM25 and chosen by sentence-transformers'
// mine_hard_negatives rules, written as rows `train` reads, with a report of the queries that got fewer than asked.
import { join } from 'node:path';
import { describeMiningNotes, readMiningSet, type MiningFiles } from '../../app/training/mining-input.ts';
import {
  firstTextBreakingTsv,
  formatMinedRows,
  minedFileKind,
  minedRowsParquet,
  MINING_BM25,
  MINING_RETRIEVERS,
  mineNegatives,
  parquetFormatProblem,
  tsvFormatProblem,
  type MineRequest,
  type MiningRetriever,
} from '../../app/training/mine-negatives.ts';
import {
  rulesThatMayDropPositives,
  SAMPLING_STRATEGIES,
  settleRules,
  type MiningRules,
  type SamplingStrategy,
} from '../../contract/training/hard-negatives.ts';
import { includePositivesFormatProblem, OUTPUT_FORMATS, type OutputFormat } from '../../contract/training/mined-rows.ts';
import type { MiningSet } from '../../contract/training/mining-set.ts';
import { EVAL_DEFAULTS, InvalidRequestError, TRAIN_LIMITS, checkRange } from '../../contract/limits.ts';
import { printable } from '../../util/printable.ts';
import { UsageError, type Args, type Command } from '../command.ts';
import { readInputFile } from '../input-file.ts';
import { withModelSession } from '../model/model-session.ts';
import { checkOutputPath, inputsOf, writeOutputFile } from '../output-file.ts';
import { miningReportLines } from './mine-report.ts';

function oneOf<T extends string>(args: Args, name: string, values: readonly T[]): T {
  const value = args.string(name)!;
  if (!(values as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be one of ${values.join(', ')}, got "${value}"`);
  return value as T;
}

/** The rules as given (sentence-transformers' names; an absent score option is off). */
function rulesFrom(args: Args): MiningRules {
  const rules: MiningRules = {
    range_min: args.numberOrDefault('range_min'),
    num_negatives: args.numberOrDefault('num_negatives'),
    sampling_strategy: oneOf<SamplingStrategy>(args, 'sampling_strategy', SAMPLING_STRATEGIES),
  };
  if (args.flag('include_positives')) rules.include_positives = true;
  for (const name of ['range_max', 'max_score', 'min_score', 'absolute_margin', 'relative_margin'] as const) {
    const value = args.number(name);
    if (value !== undefined) rules[name] = value;
  }
  return rules;
}

/**
 * The output format: --output_format's; with --include_positives, n-tuple when none is given (sentence-transformers
 * sets it so) and any other refused, since only n-tuple rows keep the ranking with the positives in place.
 */
function outputFormatOf(args: Args): OutputFormat {
  const includePositives = args.flag('include_positives');
  if (includePositives && !args.has('output_format')) return 'n-tuple';
  const format = oneOf<OutputFormat>(args, 'output_format', OUTPUT_FORMATS);
  const problem = includePositives ? includePositivesFormatProblem(format) : null;
  if (problem) throw new UsageError(`--output_format ${format} with --include_positives: ${problem}; leave --output_format out`);
  return format;
}

/** The input files the options name: a BEIR folder's, or --corpus, --queries, --qrels, --pairs. */
async function miningFiles(args: Args): Promise<MiningFiles> {
  const beir = args.string('beir');
  const pairs = args.string('pairs');
  const given = (name: string) => args.has(name);
  if (beir !== undefined && ['corpus', 'queries', 'qrels'].some(given))
    throw new UsageError(
      '--beir names the corpus, queries and qrels: give --beir, or --corpus with --queries and --qrels (or --pairs), not both',
    );
  if (pairs !== undefined && (given('queries') || given('qrels')))
    throw new UsageError('--pairs gives the queries and their positives: give --pairs, or --queries and --qrels, not both');
  const read = async (option: string, path: string) => ({ bytes: await readInputFile(option, path), name: path });
  const corpusPath = beir !== undefined ? join(beir, 'corpus.jsonl') : args.string('corpus');
  const corpus = corpusPath === undefined ? undefined : await read(beir !== undefined ? 'beir' : 'corpus', corpusPath);
  if (pairs !== undefined) return { corpus, pairs: await read('pairs', pairs) };
  if (beir !== undefined)
    return {
      corpus,
      queries: await read('beir', join(beir, 'queries.jsonl')),
      qrels: await read('beir', join(beir, 'qrels', `${args.string('split')}.tsv`)),
    };
  const queries = args.string('queries');
  const qrels = args.string('qrels');
  if (corpus === undefined || queries === undefined || qrels === undefined)
    throw new UsageError('give --beir <dir>, or --corpus with --queries and --qrels, or --pairs (with or without --corpus)');
  return { corpus, queries: await read('queries', queries), qrels: await read('qrels', qrels) };
}

/** A TSV output whose texts hold a tab or a line break is refused before any work, naming the first. */
function checkTsvTexts(set: MiningSet): void {
  const query = firstTextBreakingTsv(set.queries.map((q) => q.text));
  const doc = firstTextBreakingTsv(set.documents);
  if (query < 0 && doc < 0) return;
  const what = query >= 0 ? `query ${set.queries[query].name}` : `document ${set.documentIds[doc]}`;
  throw new Error(`${what} holds a tab or a line break, which a TSV field cannot: write --out as .jsonl, which keeps any text`);
}

/** Progress on one stderr line, rewritten at most every 200 ms and at the end of each stage. */
function progressLine(): (stage: string, done: number, total: number) => void {
  let last = 0;
  return (stage, done, total) => {
    const now = performance.now();
    if (done < total && now - last < 200) return;
    last = now;
    process.stderr.write(`\r${stage} ${done}/${total}   `);
  };
}

export const mineCommand: Command = {
  spec: {
    name: 'mine',
    summary: "mine hard negatives with the model's own sparse index or BM25, by sentence-transformers' mine_hard_negatives rules",
    options: {
      model: {
        value: 'dir-or-hub-id',
        help: 'the SPLADE or MLM model whose exact sparse retrieval finds the candidates (--retriever model)',
      },
      retriever: {
        value: MINING_RETRIEVERS.join('|'),
        help: `model: the model's vectors and exact top-k, as eval retrieves; bm25: BM25 over words (k1 ${MINING_BM25.k1}, b ${MINING_BM25.b}, as splade-lab bm25)`,
        default: 'model',
      },
      beir: {
        value: 'dir',
        help: 'a BEIR folder: corpus.jsonl, queries.jsonl and qrels/<split>.tsv (with --pairs, its corpus only)',
      },
      split: { value: 'name', help: "the BEIR folder's qrels split", default: 'train' },
      corpus: { value: 'corpus.jsonl', help: 'a BEIR corpus ({"_id", "title"?, "text"} per line), without --beir' },
      queries: { value: 'queries.jsonl', help: 'the queries ({"_id", "text"} per line), with --corpus and --qrels' },
      qrels: { value: 'qrels.tsv', help: 'query-id, corpus-id, score: a score above 0 is a positive' },
      pairs: {
        value: 'file',
        help: 'query-positive pairs instead of queries and qrels: TSV (query<TAB>positive) or JSONL ({"query" or "anchor", "positive"}); with no corpus, the positives are the corpus',
      },
      out: {
        value: 'file.tsv|file.jsonl|file.parquet',
        help: 'the mined rows, in the columns train reads (written beside and renamed); Parquet: triplet and n-tuple',
        required: true,
      },
      output_format: {
        value: OUTPUT_FORMATS.join('|'),
        help: 'the rows (see below)',
        default: 'triplet',
        alias: 'output-format',
      },
      num_negatives: { value: 'N', help: 'negatives per query', default: '3', alias: 'num-negatives' },
      range_min: { value: 'N', help: 'skip the N best candidates left after the rules', default: '0', alias: 'range-min' },
      range_max: {
        value: 'N',
        help: 'choose among the candidates ranked below range_max (default: range_min + num_negatives + the most positives a query has; with a margin or max_score, range_min + 10 num_negatives + that, as sentence-transformers)',
        alias: 'range-max',
      },
      max_score: { value: 'S', help: 'no negative scores above S', alias: 'max-score' },
      min_score: { value: 'S', help: 'no negative scores below S', alias: 'min-score' },
      absolute_margin: {
        value: 'M',
        help: "a negative scores at most the query's lowest positive score - M",
        alias: 'absolute-margin',
      },
      relative_margin: {
        value: 'M',
        help: "a negative scores at most (1 - M) x the query's lowest positive score (0.05: at most 95% of it)",
        alias: 'relative-margin',
      },
      include_positives: {
        help: "keep the query's positives among the candidates, ranked like any other (a reranking evaluation set); n-tuple rows only",
        alias: 'include-positives',
      },
      sampling_strategy: {
        value: SAMPLING_STRATEGIES.join('|'),
        help: 'top: the best num_negatives of the window; random: num_negatives of it drawn with --seed',
        default: 'top',
        alias: 'sampling-strategy',
      },
      seed: { value: 'N', help: "the random draws' seed", default: '1' },
      k: { value: 'K', help: 'divide the MLM head by k first', default: String(EVAL_DEFAULTS.k) },
      'query-length': { value: 'T', help: 'tokens per query', default: String(EVAL_DEFAULTS.queryLength) },
      'doc-length': { value: 'T', help: 'tokens per document', default: String(EVAL_DEFAULTS.documentLength) },
      batch: { value: 'B', help: 'texts per GPU batch', default: '8' },
      json: { help: 'print the report as one JSON object' },
    },
    notes: [
      "Output formats (sentence-transformers' names):",
      '  triplet       query, positive, negative: one row per (positive, negative) (TSV, JSONL or Parquet)',
      '  n-tuple       query, positive, negative_1..n: one row per positive of a query that got all num_negatives (TSV, JSONL or Parquet)',
      '  labeled-pair  {"query", "passage", "label"}: each positive labelled 1, then each negative 0 (JSONL)',
      '  labeled-list  {"query", "positive", "negatives", "labels": [1, 0, ...]}: one row per positive of a query that got any negative (JSONL)',
      'A query with several positives mines its negatives once, shared by every positive; a positive is never a negative',
      '(unless --include_positives keeps the positives among the candidates: then n-tuple rows only, for reranking sets).',
      "Candidates: the range_max + (the most positives a query has) best by exact search; the margins compare with the query's",
      'lowest positive score; a sparse index ranks only documents sharing a term with the query. The report says how many',
      'queries got fewer than num_negatives, and why. More in docs/cli.md (Mining hard negatives).',
    ].join('\n'),
  },
  async run(args) {
    const format = outputFormatOf(args);
    const retriever = oneOf<MiningRetriever>(args, 'retriever', MINING_RETRIEVERS);
    const rules = rulesFrom(args);
    const seed = checkRange(args.numberOrDefault('seed'), TRAIN_LIMITS.seed, 'The seed');
    const model = args.string('model');
    if (retriever === 'model' && model === undefined)
      throw new UsageError('--retriever model needs --model <dir-or-hub-id> (or mine with --retriever bm25)');
    if (retriever === 'bm25' && model !== undefined) throw new UsageError('--retriever bm25 uses no model: leave --model out');
    const out = args.required('out');
    const kind = minedFileKind(out);
    if (!kind)
      throw new UsageError(`--out ${out}: name a .tsv, .jsonl or .parquet file (the formats train reads that mine writes)`);
    const kindProblem = kind === 'tsv' ? tsvFormatProblem(format) : kind === 'parquet' ? parquetFormatProblem(format) : null;
    if (kindProblem)
      throw new UsageError(`--output_format ${format} is written as JSONL only: ${kindProblem}; name --out .jsonl`);
    await checkOutputPath(out, '--out', inputsOf(args, 'model', 'beir', 'corpus', 'queries', 'qrels', 'pairs'));
    const mayDrop = rules.include_positives ? rulesThatMayDropPositives(rules) : [];
    if (mayDrop.length)
      process.stderr.write(
        `warning: with --include_positives, ${mayDrop.map((name) => `--${name}`).join(', ')} may still take positives out of the candidates\n`,
      );

    const { set, warnings } = readMiningSet(await miningFiles(args));
    for (const line of [...warnings, ...describeMiningNotes(set.notes)]) process.stderr.write(`warning: ${printable(line)}\n`);
    try {
      settleRules(
        rules,
        set.queries.reduce((most, q) => Math.max(most, q.positives.length), 0),
      );
    } catch (error) {
      if (error instanceof InvalidRequestError) throw new UsageError(`--${error.message}`);
      throw error;
    }
    if (kind === 'tsv') checkTsvTexts(set);
    const request: MineRequest = {
      retriever,
      rules,
      format,
      seed,
      encoding: {
        k: args.numberOrDefault('k'),
        queryLength: args.numberOrDefault('query-length'),
        documentLength: args.numberOrDefault('doc-length'),
      },
    };
    const json = args.flag('json');
    const onProgress = json ? undefined : progressLine();
    const result =
      retriever === 'model'
        ? await withModelSession(model!, 'mine', { batchSize: args.numberOrDefault('batch') }, (session) =>
            mineNegatives(set, request, session, onProgress),
          )
        : await mineNegatives(set, request, null, onProgress);
    if (!json) process.stderr.write('\n');
    for (const warning of result.warnings) process.stderr.write(`warning: ${printable(warning)}\n`);
    const { report } = result;
    const lines = miningReportLines(report, result.rules, { retriever, format, documents: set.documents.length });
    if (report.negativeScores.count === 0)
      throw new Error(`no query got a negative; nothing written to ${out}\n${lines.join('\n')}`);
    if (report.rows === 0)
      throw new Error(
        `no query got all ${result.rules.num_negatives} negatives, which an n-tuple row needs; nothing written to ${out} ` +
          `(lower --num_negatives${rules.include_positives ? '' : ', or write triplet or labeled-list rows'})\n${lines.join('\n')}`,
      );
    const texts = { queries: set.queries.map((q) => q.text), documents: set.documents };
    const n = result.rules.num_negatives;
    const data =
      kind === 'parquet' ? minedRowsParquet(result.rows, format, texts, n) : formatMinedRows(result.rows, format, kind, texts, n);
    await writeOutputFile(out, data, '--out');
    if (json) {
      process.stdout.write(
        JSON.stringify({ retriever, format, out, rules: result.rules, seed, ...report, notes: set.notes }) + '\n',
      );
    } else process.stdout.write([...lines, `written to ${out}`].map((line) => printable(line)).join('\n') + '\n');
    return 0;
  },
};

// `splade-lab index-stats --model <m> --beir <dir>`: argument adapter over indexStatsOnSet: posting lengths, the
// postings each query touches (the latency proxy), index sizes under stated impact models and a pruning curve.
import { totalmem } from 'node:os';
import { openDataset } from '../../app/evaluation/datasets.ts';
import { indexStatsOnSet } from '../../app/evaluation/index-stats.ts';
import { folderRef, nodePlatform } from '../../app/platform/platform-node.ts';
import {
  IMPACT_SIZE_MODELS,
  INDEX_STATS_DEFAULTS,
  describeRule,
  type ImpactIndexSize,
  type IndexStatsReport,
  type IndexStatsRequest,
} from '../../contract/evaluation/index-stats.ts';
import { EVAL_DEFAULTS } from '../../contract/limits.ts';
import { formatBytes } from '../../util/format-bytes.ts';
import { printable } from '../../util/printable.ts';
import { UsageError, type Args, type Command } from '../command.ts';
import { QUERY_MODEL_OPTION, withModelSession } from '../model/model-session.ts';

/** A comma-separated list of numbers ("" is none). */
function numberList(args: Args, name: string): number[] {
  const raw = args.string(name) ?? '';
  if (raw.trim() === '') return [];
  return raw.split(',').map((part) => {
    const value = part.trim() === '' ? NaN : Number(part);
    if (!Number.isFinite(value)) throw new UsageError(`--${name} takes numbers separated by commas, got "${raw}"`);
    return value;
  });
}

function requestFrom(args: Args): IndexStatsRequest {
  return {
    k: args.numberOrDefault('k'),
    queryLength: args.numberOrDefault('query-length'),
    documentLength: args.numberOrDefault('doc-length'),
    pruneTop: numberList(args, 'prune-top'),
    pruneThreshold: numberList(args, 'prune-threshold'),
    scale: args.numberOrDefault('scale'),
  };
}

const fixed = (x: number, digits = 1) => x.toFixed(digits);

function sizeLine(label: string, size: ImpactIndexSize): string {
  return `${label.padEnd(15)} ${size.postings} postings, ${formatBytes(size.bytes)} (${size.bytes} B; scale ${Number(size.scale.toPrecision(6))})`;
}

function curveRows(report: IndexStatsReport): string[] {
  const header = ['rule', 'postings', 'bytes (a)', 'postings/query', 'nDCG@10', 'MRR@10'];
  const rows = report.curve.map((p) => [
    describeRule(p.rule),
    String(p.postings),
    formatBytes(p.indexBytes),
    fixed(p.meanQueryPostings),
    fixed(p.ndcg_cut_10, 4),
    fixed(p.recip_rank_10, 4),
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  return [header, ...rows].map(
    (row) => '  ' + row.map((cell, c) => (c ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  '),
  );
}

function textOf(report: IndexStatsReport): string {
  const { request: r, postingLengths: p, queryPostings: q, size } = report;
  return [
    `${report.model.architecture} on ${report.set.name}: ${report.set.queries} queries, ${report.set.documents} documents ` +
      `(k = ${r.k}; queries ${r.queryLength} tokens, documents ${r.documentLength})`,
    `posting lists   ${p.postings} postings over ${p.terms} terms; length mean ${fixed(p.mean)}, p50 ${p.p50}, p99 ${p.p99}, max ${p.max}`,
    `longest lists   ${p.longest.map((l) => `${printable(l.term)} ${l.length}`).join(', ')}`,
    `query postings  summed posting length of each query's terms: mean ${fixed(q.mean)}, p50 ${q.p50}, p99 ${q.p99}`,
    sizeLine('index size (a)', size.anserini),
    `                ${size.anserini.model}`,
    sizeLine('index size (b)', size.byte),
    `                ${size.byte.model}`,
    'pruning curve   top N: each document and query keeps its N largest weights (as eval --prune N); w >= W: document weights below W dropped, queries whole',
    ...curveRows(report),
  ].join('\n');
}

export const indexStatsCommand: Command = {
  spec: {
    name: 'index-stats',
    summary: "a set's inverted index: posting lengths, postings per query (latency proxy), index size, a pruning curve",
    options: {
      model: { value: 'dir-or-hub-id', help: 'a SPLADE or MLM model folder, or a Hub id', required: true },
      ...QUERY_MODEL_OPTION,
      beir: { value: 'dir', help: 'a BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv)', required: true },
      split: { value: 'name', help: 'qrels split of the BEIR folder', default: 'test' },
      k: { value: 'K', help: 'divide the MLM head by k first', default: String(EVAL_DEFAULTS.k) },
      'query-length': { value: 'T', help: 'tokens per query', default: String(EVAL_DEFAULTS.queryLength) },
      'doc-length': { value: 'T', help: 'tokens per document', default: String(EVAL_DEFAULTS.documentLength) },
      batch: { value: 'B', help: 'texts per GPU batch', default: '8' },
      'prune-top': {
        value: 'N,...',
        help: 'curve points keeping the N largest weights of every document and query (as eval --prune N)',
        default: INDEX_STATS_DEFAULTS.pruneTop.join(','),
      },
      'prune-threshold': {
        value: 'W,...',
        help: 'curve points dropping document weights below W (queries whole)',
        default: INDEX_STATS_DEFAULTS.pruneThreshold.join(','),
      },
      scale: { value: 'S', help: 'Anserini impact scale: w -> round(S w)', default: String(INDEX_STATS_DEFAULTS.scale) },
      json: { help: "print one JSON object (with each query's summed posting length)" },
    },
    notes:
      "The documents and queries are encoded once; everything else is computed from those vectors. A query's postings " +
      "are the summed lengths of its terms' posting lists in the document index (what a term-at-a-time search reads). " +
      'Index sizes count postings only (no term dictionary, no skip data):\n' +
      `  (a) ${IMPACT_SIZE_MODELS.anserini}\n` +
      `  (b) ${IMPACT_SIZE_MODELS.byte}\n` +
      "The docid gap is the distance to the list's previous document (the first: its document number). The curve starts " +
      'unpruned; each point gives postings, bytes under (a), mean postings per query, nDCG@10 and MRR@10 (top 1000 retrieved).',
  },
  async run(args) {
    const beir = args.required('beir');
    const request = requestFrom(args);
    const json = args.flag('json');
    const progress = (stage: string, done: number, total: number) => {
      if (!json) process.stderr.write(`\r${beir}: ${stage} ${done}/${total}   `);
    };
    const report = await withModelSession(
      args.required('model'),
      'index-stats',
      { batchSize: args.numberOrDefault('batch'), queryModel: args.string('query-model') },
      async (session) => {
        const dataset = await openDataset(nodePlatform, {
          kind: 'beir',
          files: folderRef(beir),
          split: args.string('split'),
          name: beir,
        });
        return indexStatsOnSet(session, dataset, request, {
          onProgress: progress,
          onPoint: (done, total) => progress('pruning curve', done, total),
          memoryBudget: totalmem() / 2,
        });
      },
    );
    if (!json) process.stderr.write('\n');
    for (const warning of report.warnings) process.stderr.write(`warning: ${beir}: ${printable(warning)}\n`);
    process.stdout.write((json ? JSON.stringify(report) : textOf(report)) + '\n');
    return 0;
  },
};

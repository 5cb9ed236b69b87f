// `splade-lab publish --model <m> --corpus <BEIR folder | jsonl> --out <folder>`: argument adapter over publishSite:
// an inference-free model's corpus vectors written as a static search folder any static host serves
// (docs/publish.md), with progress and ETA on stderr and the folder's sizes (and, for a BEIR folder, the nDCG@10 the
// published search keeps) on stdout.
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename, join, resolve, sep } from 'node:path';
import { openDataset } from '../../app/evaluation/datasets.ts';
import { parsePublishCorpus } from '../../app/evaluation/publish-corpus.ts';
import { checkPublishTarget, writePublishFolder } from '../../app/evaluation/publish-folder-node.ts';
import { searchRuntime } from '../../app/evaluation/publish-runtime-node.ts';
import { coldQueryTransfer } from '../../app/evaluation/publish-transfer.ts';
import { vectorsThroughFolder } from '../../app/evaluation/publish-vectors-node.ts';
import type { ColdQueryTransfer } from '../../contract/evaluation/published-search.ts';
import {
  publishSite,
  WEIGHT_KINDS,
  type JudgedQueries,
  type PublishOptions,
  type PublishedSite,
  type EncodedCorpus,
  type WeightKind,
  PUBLISH_DEFAULTS,
} from '../../app/evaluation/publish-site.ts';
import { folderRef, nodePlatform } from '../../app/platform/platform-node.ts';
import { EVAL_DEFAULTS } from '../../contract/limits.ts';
import { printable } from '../../util/printable.ts';
import { UsageError, type Args, type Command } from '../command.ts';
import { readInputFile } from '../input-file.ts';
import { withModelSession } from '../model/model-session.ts';

const HEAVY_NOT_BUILT =
  '--heavy: the heavy mode (a model that is not inference-free, its queries encoded in the page by the WGSL encoder) is not built yet; ' +
  'publish an inference-free model (a Router: what train --inference-free saves, or OpenSearch doc-v2/v3 models) without --heavy';

function wholeNumber(args: Args, name: string, min: number): number {
  const value = args.number(name)!;
  if (!Number.isInteger(value) || value < min)
    throw new UsageError(`--${name} needs a whole number of at least ${min}, got ${value}`);
  return value;
}

function optionsFrom(args: Args, corpusName: string): PublishOptions {
  let cap: number | null = null;
  if (args.has('cap')) {
    const n = args.number('cap')!;
    if (n === 0)
      throw new UsageError(
        '--cap 0 would keep no document in any posting list: give N >= 1, or leave --cap out to keep every document',
      );
    cap = wholeNumber(args, 'cap', 1);
  }
  const weights = args.string('weights')!;
  if (!(WEIGHT_KINDS as readonly string[]).includes(weights))
    throw new UsageError(`--weights must be one of ${WEIGHT_KINDS.join(', ')}, got "${weights}"`);
  return {
    k: args.numberOrDefault('k'),
    documentLength: wholeNumber(args, 'doc-length', 1),
    prune: wholeNumber(args, 'prune', 0),
    cap,
    weights: weights as WeightKind,
    bm25: !args.flag('no-bm25'),
    shardBytes: 1024 * wholeNumber(args, 'shard-kb', 1),
    chunkSize: wholeNumber(args, 'chunk', 1),
    snippetCharacters: wholeNumber(args, 'snippet', 0),
    title: args.string('title') ?? corpusName,
  };
}

/** The corpus file, and a BEIR folder's judged queries when it has them. */
async function corpusPaths(corpus: string, split: string): Promise<{ file: string; beir: string | null }> {
  const info = await stat(corpus).catch(() => null);
  if (!info) throw new Error(`cannot read --corpus ${corpus}: there is no such file or folder; check the path`);
  if (!info.isDirectory()) return { file: corpus, beir: null };
  const file = join(corpus, 'corpus.jsonl');
  const judged = await Promise.all(
    [join(corpus, 'queries.jsonl'), join(corpus, 'qrels', `${split}.tsv`)].map((p) => stat(p).catch(() => null)),
  );
  return { file, beir: judged.every((s) => s?.isFile()) ? corpus : null };
}

/** --vectors may be neither --out (nor inside it: a publish replaces --out whole) nor an input. */
function checkVectorsFolder(dir: string, out: string, inputs: string[]): void {
  const [vectors, site] = [resolve(dir), resolve(out)];
  if (vectors === site || vectors.startsWith(`${site}${sep}`) || site.startsWith(`${vectors}${sep}`))
    throw new UsageError(`--vectors ${dir} and --out ${out} overlap: a publish replaces --out whole; keep the vectors beside it`);
  for (const input of inputs)
    if (resolve(input) === vectors) throw new UsageError(`--vectors ${dir} is an input of this publish; give another folder`);
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

function report(out: string, site: PublishedSite, seconds: number, transfer: ColdQueryTransfer | null): string {
  const m = site.manifest;
  const s = m.sizes;
  const lines = [
    `published ${m.corpus.documents} documents of ${m.corpus.name} into ${out} (${seconds.toFixed(1)} s)`,
    `model          ${m.model.name}, k = ${m.model.k}, ${m.model.documentLength} tokens per document; queries: a static table lookup`,
    `weights        ${m.splade.weights}${m.splade.cap !== null ? `, each posting list capped at its top ${m.splade.cap} documents` : ''}`,
    `SPLADE         ${m.splade.postings} postings of ${m.splade.terms} tokens in ${m.splade.shards.length} shards, ${kb(s.spladePostings)}`,
    ...(m.bm25
      ? [
          `BM25           ${m.bm25.postings} postings of ${m.bm25.terms} words in ${m.bm25.shards.length} shards, ${kb(s.bm25Postings)}`,
        ]
      : []),
    `query side     ${kb(s.querySide)} (tokenizer and weight table; checked against the model's tokenizer on ${site.tokenizerTexts} texts)`,
    `documents      ${m.documents.chunks.length} chunks of ${m.documents.chunkSize}, ${kb(s.documents)}`,
    `runtime        ${kb(s.runtime)} splade-search.js, ${kb(s.page)} index.html; total ${kb(s.total)}`,
  ];
  if (transfer)
    lines.push(
      `cold search    ${kb(transfer.p50)} at the median, ${kb(transfer.p90)} at the 90th percentile over ${transfer.queries} queries ` +
        `(${transfer.filesP50} and ${transfer.filesP90} files, the runtime's ${kb(transfer.runtime)} included; uncompressed)`,
    );
  for (const q of site.quality)
    lines.push(
      `nDCG@10 ${q.system.padEnd(7)}${q.published.toFixed(4)} published against ${q.exact.toFixed(4)} exact (${q.queries} queries; cost ${(q.exact - q.published).toFixed(4)}; ` +
        `${q.rankingsDiffering} top-1000 rankings differ, scores within ${q.largestScoreDifference.toExponential(1)})`,
    );
  return lines.join('\n');
}

export const publishCommand: Command = {
  spec: {
    name: 'publish',
    summary: 'publish an inference-free model and a corpus as a static search folder (no server: splade-search.js, index.html)',
    options: {
      model: { value: 'dir-or-hub-id', help: 'an inference-free SPLADE model (a Router folder) or Hub id', required: true },
      corpus: {
        value: 'BEIR folder | jsonl',
        help: 'the documents: a BEIR folder (its corpus.jsonl) or a {"_id", "title"?, "text"} JSONL file',
        required: true,
      },
      out: { value: 'folder', help: 'the site folder: new, empty, or a previous publish (replaced whole)', required: true },
      k: { value: 'K', help: 'divide the MLM head by k first', default: String(EVAL_DEFAULTS.k) },
      'doc-length': { value: 'T', help: 'tokens per document', default: String(EVAL_DEFAULTS.documentLength) },
      prune: {
        value: 'N',
        help: "keep each document vector's N largest weights (0: all)",
        default: String(PUBLISH_DEFAULTS.prune),
      },
      cap: { value: 'N', help: "keep each posting list's N largest weights (its top N documents; default all)" },
      weights: {
        value: WEIGHT_KINDS.join('|'),
        help: 'how posting weights are stored: uint8 with a per-term scale, IEEE half, or float32 (lossless)',
        default: PUBLISH_DEFAULTS.weights,
      },
      'no-bm25': { help: 'leave out the BM25 postings (the element then shows no switch)' },
      'shard-kb': {
        value: 'KB',
        help: 'close a posting shard once it passes this size',
        default: String(PUBLISH_DEFAULTS.shardBytes / 1024),
      },
      chunk: { value: 'N', help: 'documents per document-store chunk', default: String(PUBLISH_DEFAULTS.chunkSize) },
      snippet: {
        value: 'N',
        help: "characters of each document's text shown under its title",
        default: String(PUBLISH_DEFAULTS.snippetCharacters),
      },
      title: { value: 'text', help: 'the page title (default: the corpus name)' },
      'title-field': {
        value: 'field',
        help: 'the record field shown as the title (a dotted path reaches into objects)',
        default: 'title',
      },
      'url-field': { value: 'field', help: 'the record field holding a link (http or https) to the document', default: 'url' },
      split: { value: 'name', help: "a BEIR folder's qrels split, to measure the published search's nDCG@10", default: 'test' },
      batch: { value: 'B', help: 'texts per GPU batch', default: '8' },
      vectors: {
        value: 'folder',
        help:
          'keep the document vectors in this folder as they are encoded, and read them from it next time: a killed publish ' +
          'resumes there, and publishing again with other weights, cap or shards encodes nothing (refused if it holds ' +
          "another model's, k's, length's, pruning's or corpus's vectors)",
      },
      'vector-chunk': { value: 'N', help: 'documents per file in the --vectors folder', default: '1024' },
      heavy: { help: 'publish a model that is not inference-free, queries encoded in the page (not built yet: refused)' },
      json: { help: 'print the manifest summary and measures as one JSON object' },
    },
    notes:
      'The folder: splade-search.js (the runtime and the <splade-search> element, no dependency), index.html, manifest.json (written last: ' +
      'sizes, SHA-256 of every file, the model and k, the corpus fingerprint, the format version), query/ (tokenizer and static weight table), ' +
      'splade/ and bm25/ (posting shards, each fetched when a query needs it) and docs/ (id, title, URL and snippet in chunks, fetched for the hits). ' +
      'It is written beside --out and renamed into place. With a BEIR folder that has queries and qrels, the published search is run on them and its ' +
      "nDCG@10 printed beside exact float retrieval's (what the weights' storage and --cap cost). docs/publish.md has the layout and the embed snippets.",
  },
  async run(args) {
    if (args.flag('heavy')) throw new Error(HEAVY_NOT_BUILT);
    const corpusArg = args.required('corpus');
    const { file, beir } = await corpusPaths(corpusArg, args.string('split')!);
    const corpusName = basename(corpusArg.replace(/[\\/]+$/, '')) || corpusArg;
    const options = optionsFrom(args, corpusName);
    // a local folder is named by its last part: the page and manifest.json never show where it lay on this machine
    const modelArg = args.required('model');
    if (await stat(modelArg).catch(() => null)) options.modelName = basename(resolve(modelArg));
    const out = args.required('out');
    const target = await checkPublishTarget(out, [
      { option: '--model', path: args.required('model') },
      { option: '--corpus', path: corpusArg },
    ]);
    const vectorsDir = args.string('vectors');
    const vectorChunk = args.numberOrDefault('vector-chunk');
    if (!Number.isInteger(vectorChunk) || vectorChunk < 1)
      throw new UsageError(`--vector-chunk ${vectorChunk}: give a whole number of documents, 1 or more`);
    if (vectorsDir !== undefined) checkVectorsFolder(vectorsDir, out, [args.required('model'), corpusArg]);
    const bytes = await readInputFile('corpus', file);
    const { records, warnings } = parsePublishCorpus(bytes, file, {
      title: args.string('title-field')!,
      url: args.string('url-field')!,
    });
    for (const warning of warnings) process.stderr.write(`warning: ${printable(warning)}\n`);
    let judged: JudgedQueries | undefined;
    if (beir) {
      const dataset = await openDataset(nodePlatform, {
        kind: 'beir',
        files: folderRef(beir),
        split: args.string('split'),
        name: beir,
      });
      judged = { ids: dataset.queryIds, texts: dataset.queryTexts, qrels: dataset.qrels };
    }
    const corpus = {
      name: corpusName,
      fingerprint: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      records,
      judged,
    };
    const start = performance.now();
    const site = await withModelSession(
      args.required('model'),
      'publish',
      { batchSize: args.numberOrDefault('batch') },
      async (session) => {
        const runtime = await searchRuntime();
        const encodeStart = performance.now();
        const onProgress = (done: number, total: number) => {
          const seconds = (performance.now() - encodeStart) / 1000;
          const left = done > 0 ? (seconds / done) * (total - done) : NaN;
          process.stderr.write(
            `\rencoding ${done}/${total} documents, ${seconds.toFixed(0)} s, about ${left.toFixed(0)} s left   `,
          );
        };
        let reuse: EncodedCorpus | undefined;
        if (vectorsDir !== undefined) {
          const texts = corpus.records.map((r) => r.text);
          const { vectors, report: kept } = await vectorsThroughFolder(
            session,
            vectorsDir,
            texts,
            options,
            corpus.fingerprint,
            vectorChunk,
            { onProgress },
          );
          for (const problem of kept.problems) process.stderr.write(`\nwarning: ${printable(problem)}`);
          process.stderr.write(
            `\ndocument vectors: ${kept.read} read from ${vectorsDir}, ${kept.encoded} encoded and kept there\n`,
          );
          reuse = { documents: vectors };
        }
        return publishSite(
          session,
          corpus,
          runtime,
          options,
          {
            onProgress,
            onStage: (stage) =>
              process.stderr.write(
                stage === 'index' ? '\nbuilding the posting shards\n' : 'measuring the published search on the judged queries\n',
              ),
          },
          reuse,
        );
      },
    );
    const transfer = corpus.judged ? await coldQueryTransfer(site, corpus.judged.texts) : null;
    await writePublishFolder(out, target, site.files, site.manifestBytes);
    const seconds = (performance.now() - start) / 1000;
    if (args.flag('json')) {
      const { files: _, ...summary } = site.manifest;
      process.stdout.write(
        JSON.stringify({ out, ...summary, quality: site.quality, coldSearch: transfer, tokenizerTexts: site.tokenizerTexts }) +
          '\n',
      );
    } else process.stdout.write(printable(report(out, site, seconds, transfer), '\n') + '\n');
    return 0;
  },
};

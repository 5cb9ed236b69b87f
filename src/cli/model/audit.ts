// `splade-lab audit`: argument adapter over the expansion audit. Texts (--text, --in): each active term of a text's
// SPLADE vector, its weight, input term or expansion, and the input token whose logit won the max pooling; a --corpus:
// where the corpus's weight goes (auditCorpus); --against: the terms a second model (or k) gains and loses, compared a
// chunk of texts at a time (AuditDiffBuilder);
// --query: each text as a document scored against the query (encoded as retrieval encodes queries: an inference-free
// model's is its static table's lookup), its shared terms with their origins on both sides.
import { compareInChunks, type AuditDiffBuilder } from '../../app/model/audit-diff.ts';
import { auditCorpus, isBlankText } from '../../app/model/corpus-audit.ts';
import { AUDIT_CHUNK, auditQueries, streamTextAudits, type TextAudit } from '../../app/model/expansion-audit.ts';
import type { ModelSession } from '../../app/model/model-session.ts';
import { printable } from '../../util/printable.ts';
import { UsageError, type Args, type Command } from '../command.ts';
import { tableText, tablesTsv, type ReportTable } from '../report-table.ts';
import { readAuditInput, type AuditInput } from './audit-input.ts';
import { corpusTables, diffTables } from '../../contract/model/audit-tables.ts';
import { auditPair, type PairAudit, type SideOfTerm } from '../../contract/model/pair-audit.ts';
import { withModelSession } from './model-session.ts';
import { checkOutputPath, inputsOf, writeOutputFile } from '../output-file.ts';

function formatAudit(audit: TextAudit, top: number): string {
  const shown = top > 0 ? audit.terms.slice(0, top) : audit.terms;
  const rows = shown.map(
    (t) =>
      `  ${printable(t.term).padEnd(16)} ${t.weight.toFixed(4).padStart(8)}  ${(t.expansion ? 'expansion' : 'input').padEnd(9)}  ` +
      `from ${String(t.position).padStart(3)} ${printable(t.piece)}`,
  );
  return [
    `"${printable(audit.text)}" at k = ${audit.k}: ${audit.terms.length} active terms, ` +
      `${(100 * audit.expansionShare).toFixed(1)}% of the weight on expansions`,
    `  tokens: ${audit.tokens.map((piece, i) => `${i}:${printable(piece)}`).join(' ')}`,
    `  ${'term'.padEnd(16)} ${'weight'.padStart(8)}  ${'kind'.padEnd(9)}  won at position, piece`,
    ...rows,
    ...(shown.length < audit.terms.length ? [`  ... and ${audit.terms.length - shown.length} more (--top 0 lists all)`] : []),
  ].join('\n');
}

function formatSide(side: SideOfTerm): string {
  return `${side.weight.toFixed(4).padStart(8)} ${(side.expansion ? 'expansion' : 'input').padEnd(9)} ${String(side.position).padStart(3)} ${printable(side.piece).padEnd(12)}`;
}

function formatPair(pair: PairAudit, top: number): string {
  const shown = top > 0 ? pair.shared.slice(0, top) : pair.shared;
  const percent = (share: number) => `${(100 * share).toFixed(1)}%`;
  const { query, document, both } = pair.expansionShares;
  return [
    `query "${printable(pair.query.text)}" and document "${printable(pair.document.text)}" at k = ${pair.query.k}: ` +
      `score ${pair.score.toFixed(4)} over ${pair.shared.length} shared terms; of the score, ${percent(query)} from query ` +
      `expansions, ${percent(document)} from document expansions, ${percent(both)} from terms expanded on both sides`,
    `  ${'term'.padEnd(16)} ${'product'.padStart(8)}  ${'query: weight, kind, won at position, piece'.padEnd(46)}  document: the same`,
    ...shown.map((t) =>
      `  ${printable(t.term).padEnd(16)} ${t.product.toFixed(4).padStart(8)}  ${formatSide(t.query).padEnd(46)}  ${formatSide(t.document)}`.trimEnd(),
    ),
    ...(shown.length < pair.shared.length ? [`  ... and ${pair.shared.length - shown.length} more (--top 0 lists all)`] : []),
  ].join('\n');
}

/** One side of a comparison: a model and the k its head is divided by. */
interface Side {
  model: string;
  k: number;
}

/** The encoding settings every form of the audit shares. */
function settingsOf(args: Args) {
  return {
    k: args.numberOrDefault('k'),
    maxLength: args.numberOrDefault('max-length'),
    batchSize: args.numberOrDefault('batch'),
  };
}

function sideName(side: Side): string {
  return `${printable(side.model)} at k = ${side.k}`;
}

function progress(what: string): (done: number, total: number) => void {
  return (done, total) => process.stderr.write(`\r${what} ${done}/${total}   ${done === total ? '\n' : ''}`);
}

/**
 * Compares the texts on both sides a chunk at a time (compareInChunks: what is held is one chunk's vectors, whatever
 * the number of texts): one model is opened once for both ks; two models are open together, --against checked
 * (config.json, too large, its tokenizer) before --model is read.
 */
async function compareSides(labels: string[], texts: string[], sides: [Side, Side], args: Args): Promise<AuditDiffBuilder> {
  const { maxLength, batchSize } = settingsOf(args);
  const options = { batchSize };
  const [base, against] = sides;
  const compare = (baseSession: ModelSession, againstSession: ModelSession) =>
    compareInChunks(labels, texts, [baseSession, { k: base.k, maxLength }, againstSession, { k: against.k, maxLength }], {
      chunk: AUDIT_CHUNK,
      onProgress: args.has('in') ? progress('compared') : undefined,
    });
  if (base.model === against.model) return withModelSession(base.model, 'audit', options, (session) => compare(session, session));
  return withModelSession(base.model, 'audit', { ...options, checkFirst: [against.model] }, (baseSession) =>
    withModelSession(against.model, 'audit', options, (againstSession) => compare(baseSession, againstSession)),
  );
}

/** Prints the tables (or `json`) and writes their TSV form to --out. */
async function report(args: Args, json: object, heading: string[], tables: ReportTable[], tsvTables: ReportTable[]) {
  const out = args.string('out');
  if (out !== undefined) await writeOutputFile(out, tablesTsv(tsvTables), '--out');
  process.stdout.write(
    args.flag('json') ? JSON.stringify(json) + '\n' : [...heading, '', tables.map(tableText).join('\n\n')].join('\n') + '\n',
  );
}

/** Prints the corpus report; returns what was audited, for the timing line. */
async function runCorpusAudit(args: Args, input: AuditInput): Promise<string> {
  const model = args.required('model');
  if (input.texts.every(isBlankText)) throw new UsageError('every document of --corpus is empty: there is nothing to audit');
  const { batchSize, ...request } = settingsOf(args);
  const top = args.numberOr('top', 30);
  const audit = await withModelSession(model, 'audit', { batchSize }, (session) =>
    auditCorpus(session, input.texts, request, { top, onProgress: progress('encoded') }),
  );
  const skipped = audit.skipped ? ` (${audit.skipped} empty skipped)` : '';
  const heading = [
    `${sideName({ model, k: audit.k })}: ${audit.documents} documents${skipped}, per document ` +
      `${audit.meanActiveDims.toFixed(1)} active dimensions and a summed weight of ${audit.meanWeight.toFixed(2)}`,
    `subword pieces: ${audit.subwordMarking}; stop words: ${audit.stopWords}`,
  ];
  const tables = corpusTables(audit);
  await report(args, { model, maxLength: request.maxLength, ...audit }, heading, tables, tables);
  return `${audit.documents} documents`;
}

/** Prints the comparison; returns what was audited, for the timing line. */
async function runDiff(args: Args, input: AuditInput): Promise<string> {
  const { k, maxLength } = settingsOf(args);
  const base = { model: args.required('model'), k };
  const against = { model: args.required('against'), k: args.numberOr('against-k', k) };
  const kept = input.texts.flatMap((text, i) => (isBlankText(text) ? [] : [i]));
  const [labels, texts] = [kept.map((i) => input.labels[i]), kept.map((i) => input.texts[i])];
  if (texts.length === 0) throw new UsageError('every text is empty: there is nothing to compare');
  const builder = await compareSides(labels, texts, [base, against], args);
  const top = args.numberOr('top', 50);
  const diff = builder.result(top);
  const skipped = input.texts.length - texts.length;
  const names = { model: sideName(base), against: sideName(against) };
  const heading = [
    `${names.against} against ${names.model}, on ${counted(diff.texts, 'text')}${skipped ? ` (${skipped} empty skipped)` : ''}: ` +
      `active dimensions ${signed(diff.meanDimsChange, 1)} and FLOPS ${signed(diff.meanFlopsChange, 3)} per text on average`,
  ];
  const json = { model: base, against, maxLength, skipped, ...diff };
  await report(args, json, heading, diffTables(diff, names, top), diffTables(diff, names, 0));
  return `${counted(diff.texts, 'text')} on both sides`;
}

function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function signed(value: number, digits: number): string {
  return (value > 0 ? '+' : '') + value.toFixed(digits);
}

/**
 * Audits each text alone, or (with --query) each text as a document beside the query, printing each as it is made
 * (text blocks, or the JSON array one element at a time): a chunk of texts is all that is held, whatever their number,
 * and --in's texts are counted on stderr as they go.
 */
async function runTextAudit(args: Args, input: AuditInput): Promise<void> {
  const { batchSize, ...request } = settingsOf(args);
  const query = args.string('query');
  const top = args.numberOr('top', 30);
  const json = args.flag('json');
  const write = (text: string) => void process.stdout.write(text);
  await withModelSession(args.required('model'), 'audit', { batchSize }, async (session) => {
    const queryAudit = query === undefined ? null : (await auditQueries(session, [query], request))[0];
    if (json) write('[');
    await streamTextAudits(
      session,
      input.texts,
      request,
      (audit, i) => {
        const item = queryAudit === null ? audit : auditPair(queryAudit, audit);
        const shown = json
          ? JSON.stringify(item)
          : queryAudit === null
            ? formatAudit(audit, top)
            : formatPair(item as PairAudit, top);
        write(i === 0 ? shown : `${json ? ',' : '\n\n'}${shown}`);
      },
      { onProgress: args.has('in') ? progress('audited') : undefined },
    );
    write(json ? ']\n' : '\n');
  });
}

export const auditCommand: Command = {
  spec: {
    name: 'audit',
    summary:
      "where a SPLADE vector's weight comes from: each text's terms and the input token that caused each, a corpus's weight by kind of term, or two models (or two k) compared",
    options: {
      model: { value: 'dir-or-hub-id', help: 'a SPLADE or MLM model folder, or a Hub id', required: true },
      text: { value: 'TEXT', help: 'a text to audit (repeatable)', multiple: true },
      in: { value: 'records.jsonl', help: 'texts to audit: one {"_id", "title"?, "text"} object per line' },
      corpus: {
        value: 'dir|records.jsonl',
        help: 'a corpus to report on as a whole: a BEIR folder (its corpus.jsonl) or records; title and text joined, empty documents skipped and counted',
      },
      query: {
        value: 'TEXT',
        help: "audit each text of --text or --in as a document beside this query: the terms both vectors hold, each term's product (its part of the score) and the token that caused it on each side",
      },
      limit: { value: 'N', help: 'the first N records of --corpus or --in only' },
      against: {
        value: 'dir-or-hub-id',
        help: "compare with this model (it may be --model again, at another --against-k): terms gained and lost, and each text's change in active dimensions and FLOPS",
      },
      k: { value: 'K', help: 'divide the MLM head by k first', default: '1' },
      'against-k': { value: 'K', help: "the --against model's k (default: --k)" },
      'max-length': { value: 'T', help: 'tokens per text', default: '256' },
      top: {
        value: 'N',
        help: 'rows per list (0: all): terms per text or shared terms per pair (default 30; --json lists all), corpus term lists (default 30), compared terms and texts (default 50)',
      },
      batch: { value: 'B', help: 'texts per GPU batch', default: '8' },
      json: {
        help: 'print JSON: an array with one object per text (per pair with --query), or one object for a corpus or a comparison',
      },
      out: {
        value: 'report.tsv',
        help: "also write a corpus report's or a comparison's tables as TSV: blocks parted by an empty line, each a header row then its rows, numbers to 6 significant digits",
      },
    },
    notes:
      'With max pooling the answer is exact: each vocabulary id keeps the one position whose logit is largest (the first on a tie). ' +
      "A term is an expansion when it is none of the text's own token ids.\n" +
      'A corpus report sorts every active term by origin (input or expansion) and, across that, by kind: special and reserved ' +
      "tokens, numbers (digit pieces), stop words (NLTK's 127 English ones), subword pieces (the marking the vocabulary uses: " +
      '"##" continuations, or pieces without "Ġ" or "▁"), other words; with each kind\'s share of the weight and of the active ' +
      'dimensions, its mean per document, the most frequent expansions and the terms active in the most documents.\n' +
      "A comparison's FLOPS of a text is the sum of its squared weights (the training FLOPS loss of a batch of that one text).",
  },
  async run(args) {
    const started = performance.now();
    if (args.has('against-k') && !args.has('against')) throw new UsageError('--against-k needs --against');
    if (args.has('query') && (args.has('corpus') || args.has('against')))
      throw new UsageError(
        '--query audits pairs of texts: give the documents with --text or --in, without --corpus or --against',
      );
    if (args.has('query') && isBlankText(args.string('query') ?? '')) throw new UsageError('--query is empty: give a query text');
    const input = await readAuditInput(args);
    const out = args.string('out');
    if (out !== undefined) {
      if (!input.corpus && !args.has('against')) throw new UsageError('--out writes the tables of a --corpus or an --against');
      await checkOutputPath(out, '--out', inputsOf(args, 'model', 'against', 'in', 'corpus'));
    }
    if (!input.corpus && !args.has('against')) {
      await runTextAudit(args, input);
      return 0;
    }
    const audited = args.has('against') ? await runDiff(args, input) : await runCorpusAudit(args, input);
    process.stderr.write(`audited ${audited} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    return 0;
  },
};

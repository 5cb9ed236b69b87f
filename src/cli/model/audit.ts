// `splade-lab audit --model <m> --text <t>...`: argument adapter over auditTexts: each active term of a text's SPLADE
// vector, its weight, input term or expansion, and the input token whose logit won the max pooling.
import { auditTexts, type TextAudit } from '../../app/model/expansion-audit.ts';
import { readExportRecords } from '../../app/evaluation/export-vectors.ts';
import { printable } from '../../util/printable.ts';
import { UsageError, type Command } from '../command.ts';
import { readInputFile } from '../input-file.ts';
import { withModelSession } from './model-session.ts';

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

export const auditCommand: Command = {
  spec: {
    name: 'audit',
    summary: "which input token caused each term of a text's SPLADE vector (the position that won the max pooling)",
    options: {
      model: { value: 'dir-or-hub-id', help: 'a SPLADE or MLM model folder, or a Hub id', required: true },
      text: { value: 'TEXT', help: 'a text to audit (repeatable)', multiple: true },
      in: { value: 'records.jsonl', help: 'texts to audit: one {"_id", "title"?, "text"} object per line' },
      k: { value: 'K', help: 'divide the MLM head by k first', default: '1' },
      'max-length': { value: 'T', help: 'tokens per text', default: '256' },
      top: { value: 'N', help: 'terms listed per text, heaviest first (0: all; --json always lists all)', default: '30' },
      batch: { value: 'B', help: 'texts per GPU batch', default: '8' },
      json: { help: 'print one JSON array, one object per text' },
    },
    notes:
      'With max pooling the answer is exact: each vocabulary id keeps the one position whose logit is largest (the first on a tie). ' +
      "A term is an expansion when it is none of the text's own token ids.",
  },
  async run(args) {
    const texts = [...args.all('text')];
    const input = args.string('in');
    if (input) {
      const { records, warnings } = readExportRecords(await readInputFile('in', input), input);
      for (const warning of warnings) process.stderr.write(`warning: ${printable(warning)}\n`);
      texts.push(...records.map((r) => r.text));
    }
    if (texts.length === 0) throw new UsageError('give a --text to audit, or --in with records');
    const request = { k: args.numberOr('k', 1), maxLength: args.numberOr('max-length', 256), topK: 0 };
    const audits = await withModelSession(args.required('model'), 'audit', { batchSize: args.numberOr('batch', 8) }, (session) =>
      auditTexts(session, texts, request),
    );
    const top = args.numberOr('top', 30);
    process.stdout.write(
      args.flag('json') ? JSON.stringify(audits) + '\n' : audits.map((a) => formatAudit(a, top)).join('\n\n') + '\n',
    );
    return 0;
  },
};

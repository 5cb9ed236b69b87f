// The texts `splade-lab audit` reads: --text (repeatable) and --in records, or a --corpus (a BEIR folder's
// corpus.jsonl or a records file, read as `encode` and `eval` read them: title and text joined), cut to --limit.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readExportRecords } from '../../app/evaluation/export-vectors.ts';
import { printable } from '../../util/printable.ts';
import { UsageError, type Args } from '../command.ts';
import { readInputFile } from '../input-file.ts';

export interface AuditInput {
  /** Each text's name in tables: a record's id, or a --text itself. */
  labels: string[];
  texts: string[];
  /** Whether the texts are a --corpus (a corpus report) rather than texts to audit one by one. */
  corpus: boolean;
}

/** The records of `--<option> <path>` (a folder: its corpus.jsonl), their warnings printed on stderr. */
async function readRecords(option: string, path: string, limit: number | undefined) {
  if (option === 'corpus' && (await stat(path).catch(() => null))?.isDirectory()) path = join(path, 'corpus.jsonl');
  const { records, warnings } = readExportRecords(await readInputFile(option, path), path);
  for (const warning of warnings) process.stderr.write(`warning: ${printable(warning)}\n`);
  return limit === undefined ? records : records.slice(0, limit);
}

export async function readAuditInput(args: Args): Promise<AuditInput> {
  const limit = args.number('limit');
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
    throw new UsageError(`--limit needs a whole number of texts above 0, got ${limit}`);
  const corpus = args.string('corpus');
  if (corpus !== undefined) {
    if (args.has('text') || args.has('in')) throw new UsageError('give --corpus, or --text and --in, not both');
    const records = await readRecords('corpus', corpus, limit);
    return { labels: records.map((r) => r.id), texts: records.map((r) => r.text), corpus: true };
  }
  const texts = args.all('text');
  const input = args.string('in');
  const records = input === undefined ? [] : await readRecords('in', input, limit);
  if (texts.length + records.length === 0) throw new UsageError('give a --text to audit, --in with records, or a --corpus');
  return {
    labels: [...texts, ...records.map((r) => r.id)],
    texts: [...texts, ...records.map((r) => r.text)],
    corpus: false,
  };
}

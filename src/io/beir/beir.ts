// BEIR test collections: corpus.jsonl, queries.jsonl and qrels/<split>.tsv (strict UTF-8), joined into one
// RetrievalDataset. Ids are strings (an id written as a JSON number keeps its digits); one that a TREC run could not
// hold (empty, white space) or that repeats an earlier one is refused with file and line.
import { splitLines } from '../line-breaks.ts';
import type { RetrievalDataset } from '../../contract/evaluation/dataset.ts';
import type { Qrels } from '../../contract/evaluation/run-types.ts';
import {
  MissingFileError,
  allInOrder,
  fileLocation,
  readRequiredFile,
  type FileSource,
  type ReadOptions,
} from '../file-source.ts';
import { clip } from '../format-error.ts';
import { memberSourceText } from '../json-member-text.ts';
import { textOf } from '../text-decode.ts';
import { trecIdProblem } from './trec.ts';
import { describeJsonValue } from '../../util/json-value.ts';
import { ownCopy } from '../../util/own-copy.ts';

/** Text a model sees for a BEIR document: title + " " + text, trimmed, when there is a title (as BEIR's encoders do). */
export function beirDocumentText(title: string | undefined, text: string): string {
  return (title ? `${title} ${text}` : text).trim();
}

export interface JsonlRecord {
  id: string;
  title?: string;
  text: string;
}

/** Records read from one file, and what the reader changed on the way (said once each, as warnings). */
export interface ParsedRecords {
  records: JsonlRecord[];
  warnings: string[];
}

/**
 * A title or text longer than this many characters keeps only its first ones: a model reads a few hundred tokens of
 * a document, and tokenising a 48 MB text whole took 3 GB. Far above any real document (BEIR's longest are ~0.1 MB).
 */
export const MAX_FIELD_CHARACTERS = 1_000_000;

/** Refuses an id a TREC run or qrels line could not hold, naming where it was read. */
export function checkTrecId(id: string, what: string, where: string): void {
  const problem = trecIdProblem(id);
  if (!problem) return;
  const fix = id === '' ? 'give the record an id of its own' : 'remove the white space from the id';
  throw new Error(`${where}: ${what} "${clip(id, 60)}" ${problem}; ${fix}`);
}

/**
 * Remembers where each id was first read (by a number: a line, a row); seeing one again is an error naming both
 * places. `placeOf` says how a number reads in a message ("line 3").
 */
export function uniqueIds(what: string, placeOf: (place: number) => string): (id: string, where: string, place: number) => void {
  const first = new Map<string, number>();
  return (id, where, place) => {
    const earlier = first.get(id);
    if (earlier !== undefined)
      throw new Error(
        `${where}: ${what} "${clip(id, 60)}" repeats the ${what} of ${placeOf(earlier)}; ids must be unique: remove one of the two or give it an id of its own`,
      );
    first.set(id, place);
  };
}

/** A record's "_id": a string, or a JSON number as it is written (its digits, never a rounded float64). */
function idOf(value: unknown, line: string, where: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return memberSourceText(line, '_id')!;
  if (value === undefined) throw new Error(`${where}: missing "_id"`);
  throw new Error(`${where}: "_id" must be a string or a number, got ${describeJsonValue(value)}`);
}

/** Cuts title and text fields to at most `max` characters, counting what it cut for one warning. */
class FieldCap {
  private cut = 0;
  private example = '';

  constructor(
    private readonly fileName: string,
    private readonly max: number,
  ) {}

  apply(text: string, field: string, line: number): string {
    if (text.length <= this.max) return text;
    this.cut++;
    this.example ||= `line ${line}: "${field}" of ${text.length} characters`;
    const last = text.charCodeAt(this.max - 1);
    const end = last >= 0xd800 && last <= 0xdbff ? this.max - 1 : this.max; // not between the halves of a surrogate pair
    return ownCopy(text.slice(0, end));
  }

  warnings(): string[] {
    if (!this.cut) return [];
    return [
      `${this.fileName}: ${this.cut} title or text field(s) over ${this.max} characters kept only their first ${this.max} (${this.example}); a model reads far fewer tokens than that`,
    ];
  }
}

/**
 * Parses a BEIR JSONL file ({"_id", "title"?, "text"} per line; text, or bytes decoded as strict UTF-8); bad lines,
 * ids that are neither strings nor numbers and repeated ids are errors naming file and line. A title or text longer
 * than `maxFieldCharacters` keeps its first characters, with a warning.
 */
export function parseBeirJsonl(
  content: string | Uint8Array,
  fileName: string,
  { maxFieldCharacters = MAX_FIELD_CHARACTERS }: { maxFieldCharacters?: number } = {},
): ParsedRecords {
  const records: JsonlRecord[] = [];
  const checkUnique = uniqueIds('_id', (line) => `line ${line}`);
  const cap = new FieldCap(fileName, maxFieldCharacters);
  const lines = splitLines(textOf(content, fileName));
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const where = `${fileName}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new Error(`${where}: not valid JSON (${clip((error as Error).message, 120)})`, { cause: error });
    }
    const record = value as { _id?: unknown; title?: unknown; text?: unknown };
    if (typeof record !== 'object' || record === null || Array.isArray(record))
      throw new Error(`${where}: expected a JSON object {"_id", "title"?, "text"}`);
    const id = idOf(record._id, line, where);
    if (typeof record.text !== 'string') throw new Error(`${where}: missing "text" string`);
    checkTrecId(id, '_id', where);
    checkUnique(id, where, i + 1);
    const title = typeof record.title === 'string' ? cap.apply(record.title, 'title', i + 1) : undefined;
    records.push({ id, text: cap.apply(record.text, 'text', i + 1), title });
  }
  return { records, warnings: cap.warnings() };
}

const SCORE_COLUMN = /^(score|relevance|rel|label|grade|judgement|judgment)$/i;

const QUERY_COLUMN = /^q(uery)?[-_ ]?id$/i;

const DOC_COLUMN = /^(corpus|doc(ument)?|passage|p)[-_ ]?id$/i;

/** A header row names its columns ("query-id corpus-id score"); a row with a number in the score column never is one. */
function isHeaderRow([query, doc, score]: string[]): boolean {
  if (Number.isFinite(Number(score)) && score.trim() !== '') return false;
  return SCORE_COLUMN.test(score.trim()) || (QUERY_COLUMN.test(query.trim()) && DOC_COLUMN.test(doc.trim()));
}

/**
 * Parses a BEIR qrels TSV ("query-id corpus-id score"; text, or bytes decoded as strict UTF-8). The first row is
 * skipped only when it is a header by its content; any other row needs an integer score and ids without white space.
 */
export function parseBeirQrels(content: string | Uint8Array, fileName: string): { qrels: Qrels; duplicates: number } {
  const qrels: Qrels = new Map();
  let duplicates = 0;
  let first = true;
  const lines = splitLines(textOf(content, fileName));
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '') continue;
    const where = `${fileName}:${i + 1}`;
    const parts = line.split('\t');
    if (parts.length !== 3)
      throw new Error(`${where}: expected 3 tab-separated columns "query-id corpus-id score", found ${parts.length}`);
    const header = first && isHeaderRow(parts);
    first = false;
    if (header) continue;
    const score = Number(parts[2]);
    if (!Number.isInteger(score) || parts[2].trim() === '')
      throw new Error(`${where}: score "${clip(parts[2], 40)}" is not an integer`);
    checkTrecId(parts[0], 'query-id', where);
    checkTrecId(parts[1], 'corpus-id', where);
    let judged = qrels.get(parts[0]);
    if (!judged) qrels.set(parts[0], (judged = new Map()));
    if (judged.has(parts[1])) duplicates++;
    judged.set(parts[1], score);
  }
  return { qrels, duplicates };
}

/**
 * Joins parsed corpus, queries and qrels: keeps the judged queries (in the order of queries.jsonl), drops judged
 * queries with no text and counts them, counts judged documents absent from the corpus (they stay in the qrels,
 * lowering recall as trec_eval would), and refuses a result with nothing left to evaluate.
 */
export function assembleDataset(
  name: string,
  corpus: ParsedRecords,
  queries: ParsedRecords,
  judged: { qrels: Qrels; duplicates: number },
): RetrievalDataset {
  const warnings: string[] = [...corpus.warnings, ...queries.warnings];
  if (corpus.records.length === 0) throw new Error(`${name}: the corpus is empty`);
  if (judged.duplicates) warnings.push(`${judged.duplicates} qrels rows repeat a (query, document) pair (last kept)`);

  const queryText = new Map(queries.records.map((r) => [r.id, r.text]));
  const unknownQueries = [...judged.qrels.keys()].filter((id) => !queryText.has(id));
  if (unknownQueries.length) {
    warnings.push(
      `${unknownQueries.length} judged query ids have no entry in the queries (dropped), e.g. "${unknownQueries[0]}"`,
    );
    for (const id of unknownQueries) judged.qrels.delete(id);
  }
  if (judged.qrels.size === 0) throw new Error(`${name}: no judged query is present in the queries, nothing to evaluate`);

  const corpusIds = new Set(corpus.records.map((r) => r.id));
  let unknownDocs = 0;
  let example = '';
  for (const docs of judged.qrels.values()) {
    for (const id of docs.keys()) {
      if (corpusIds.has(id)) continue;
      unknownDocs++;
      example ||= id;
    }
  }
  if (unknownDocs)
    warnings.push(
      `${unknownDocs} qrels rows name documents absent from the corpus (kept as judged, never retrievable), e.g. "${example}"`,
    );

  const evaluated = queries.records.filter((r) => judged.qrels.has(r.id));
  const titled = corpus.records.some((r) => r.title);
  return {
    name,
    corpusIds: corpus.records.map((r) => r.id),
    corpusTexts: corpus.records.map((r) => beirDocumentText(r.title, r.text)),
    ...(titled ? { corpusTitles: corpus.records.map((r) => r.title?.trim() ?? '') } : {}),
    queryIds: evaluated.map((r) => r.id),
    queryTexts: evaluated.map((r) => r.text),
    qrels: judged.qrels,
    warnings,
  };
}

async function requiredBytes(source: FileSource, path: string, options?: ReadOptions): Promise<Uint8Array> {
  try {
    return await readRequiredFile(source, path, options);
  } catch (error) {
    if (error instanceof MissingFileError) {
      throw new Error(`${error.message}; a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/<split>.tsv`, {
        cause: error,
      });
    }
    throw error;
  }
}

/** Loads a BEIR folder (or URL base) for one qrels split; `options` carry read progress and a cancel signal. */
export async function loadBeir(
  source: FileSource,
  split = 'test',
  name = source.label,
  options?: ReadOptions,
): Promise<RetrievalDataset> {
  const [corpusBytes, queriesBytes, qrelsBytes] = await allInOrder<[Uint8Array, Uint8Array, Uint8Array]>([
    requiredBytes(source, 'corpus.jsonl', options),
    requiredBytes(source, 'queries.jsonl', options),
    requiredBytes(source, `qrels/${split}.tsv`, options),
  ]);
  return assembleDataset(
    name,
    parseBeirJsonl(corpusBytes, fileLocation(source, 'corpus.jsonl')),
    parseBeirJsonl(queriesBytes, fileLocation(source, 'queries.jsonl')),
    parseBeirQrels(qrelsBytes, fileLocation(source, `qrels/${split}.tsv`)),
  );
}

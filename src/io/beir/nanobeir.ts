// NanoBEIR sets (Parquet, as published by zeta-alpha-ai on the Hugging Face Hub) read with hyparquet, from a folder or URLs.
import type { RetrievalDataset } from '../../contract/evaluation/dataset.ts';
import type { Qrels } from '../../contract/evaluation/run-types.ts';
import { assembleDataset, checkTrecId, uniqueIds, type JsonlRecord, type ParsedRecords } from './beir.ts';
import { allInOrder, fileLocation, readRequiredFile, type FileSource, type ReadOptions } from '../file-source.ts';
import { memoryFile } from '../random-access.ts';
import { readParquetRows } from '../triplets/triplets-parquet.ts';
import { createUrlFolderSource } from '../hub/url-folder-source.ts';

/** Paths of the three tables inside a NanoBEIR repository. */
export interface NanoBeirLayout {
  corpus: string;
  queries: string;
  qrels: string;
}

export const defaultNanoBeirLayout: NanoBeirLayout = {
  corpus: 'corpus/train-00000-of-00001.parquet',
  queries: 'queries/train-00000-of-00001.parquet',
  qrels: 'qrels/train-00000-of-00001.parquet',
};

/** URL base of a NanoBEIR set on the Hub, e.g. nanoBeirHubBase('SciFact'). */
export function nanoBeirHubBase(name: string, owner = 'zeta-alpha-ai'): string {
  return `https://huggingface.co/datasets/${owner}/Nano${name}/resolve/main/`;
}

/** A source reading a NanoBEIR set straight from the Hub (works in the browser: the Hub allows CORS). */
export function nanoBeirHubSource(name: string, fetchImpl?: typeof fetch): FileSource {
  const base = nanoBeirHubBase(name);
  return createUrlFolderSource(base, base.replace(/\/+$/, ''), fetchImpl);
}

type Row = Record<string, unknown>;

/** A NanoBEIR table's rows, read with the checks of every Parquet file here (footer, chunks and pages against the file). */
async function readTable(
  source: FileSource,
  path: string,
  columns: readonly string[],
  optional: readonly string[],
  options?: ReadOptions,
): Promise<Row[]> {
  const bytes = await readRequiredFile(source, path, options);
  return readParquetRows(memoryFile(bytes, fileLocation(source, path)), columns, optional);
}

function textRecords(rows: Row[], where: string): ParsedRecords {
  const records: JsonlRecord[] = [];
  const checkUnique = uniqueIds('_id', (row) => `row ${row}`);
  rows.forEach((row, i) => {
    if (row._id === null || row._id === undefined || typeof row.text !== 'string')
      throw new Error(`${where}: row ${i} lacks _id or text`);
    const id = String(row._id);
    checkTrecId(id, '_id', `${where} row ${i}`);
    checkUnique(id, `${where} row ${i}`, i);
    records.push({ id, text: row.text, title: typeof row.title === 'string' ? row.title : undefined });
  });
  return { records, warnings: [] };
}

function qrelsFromRows(rows: Row[], where: string): { qrels: Qrels; duplicates: number } {
  const qrels: Qrels = new Map();
  let duplicates = 0;
  rows.forEach((row, i) => {
    const queryId = row['query-id'];
    const docId = row['corpus-id'];
    if (queryId === null || queryId === undefined || docId === null || docId === undefined)
      throw new Error(`${where}: row ${i} lacks query-id or corpus-id`);
    const score = row.score === undefined ? 1 : Number(row.score); // NanoBEIR lists positives only
    if (!Number.isInteger(score)) throw new Error(`${where}: row ${i} has a non-integer score ${String(row.score).slice(0, 40)}`);
    checkTrecId(String(queryId), 'query-id', `${where} row ${i}`);
    checkTrecId(String(docId), 'corpus-id', `${where} row ${i}`);
    let judged = qrels.get(String(queryId));
    if (!judged) qrels.set(String(queryId), (judged = new Map()));
    if (judged.has(String(docId))) duplicates++;
    judged.set(String(docId), score);
  });
  return { qrels, duplicates };
}

/**
 * Loads a NanoBEIR set from any source (a folder, the Hub's dataset repository, `nanoBeirHubSource(name)`);
 * `options` carry read progress and a cancel signal.
 */
export async function loadNanoBeir(
  source: FileSource,
  name: string,
  layout: NanoBeirLayout = defaultNanoBeirLayout,
  options?: ReadOptions,
): Promise<RetrievalDataset> {
  const [corpusRows, queryRows, qrelsRows] = await allInOrder<[Row[], Row[], Row[]]>([
    readTable(source, layout.corpus, ['_id', 'text'], ['title'], options),
    readTable(source, layout.queries, ['_id', 'text'], ['title'], options),
    readTable(source, layout.qrels, ['query-id', 'corpus-id'], ['score'], options),
  ]);
  return assembleDataset(
    name,
    textRecords(corpusRows, fileLocation(source, layout.corpus)),
    textRecords(queryRows, fileLocation(source, layout.queries)),
    qrelsFromRows(qrelsRows, fileLocation(source, layout.qrels)),
  );
}

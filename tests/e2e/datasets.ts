// Retrieval sets for the e2e tests: a small BEIR folder derived from SciFact (../shared/data), and the same set laid
// out as NanoBEIR publishes it (three Parquet tables of a Hub dataset repository).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { sharedDataPath } from '../helpers/retrieval-shared-data.ts';

/** A BEIR folder of SciFact's first 12 judged test queries, their relevant documents and 48 others. */
export function smallScifact(dir: string): string[] {
  const lines = (file: string) => readFileSync(sharedDataPath(`scifact/${file}`), 'utf8').split('\n').filter(Boolean);
  const qrels = lines('qrels/test.tsv').slice(1).map((line) => line.split('\t'));
  const queryIds = [...new Set(qrels.map(([q]) => q))].slice(0, 12);
  const kept = qrels.filter(([q]) => queryIds.includes(q));
  const corpus = lines('corpus.jsonl').map((line) => JSON.parse(line) as { _id: string });
  const relevant = new Set(kept.map(([, d]) => d));
  const docs = [...corpus.filter((d) => relevant.has(d._id)), ...corpus.filter((d) => !relevant.has(d._id)).slice(0, 48)];
  const queries = lines('queries.jsonl').map((line) => JSON.parse(line) as { _id: string }).filter((q) => queryIds.includes(q._id));
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  writeFileSync(join(dir, 'corpus.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
  writeFileSync(join(dir, 'queries.jsonl'), queries.map((q) => JSON.stringify(q)).join('\n') + '\n');
  writeFileSync(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\n' + kept.map((row) => row.join('\t')).join('\n') + '\n');
  return [join(dir, 'corpus.jsonl'), join(dir, 'queries.jsonl'), join(dir, 'qrels', 'test.tsv')];
}

/** The same small set as NanoBEIR publishes it: three Parquet tables in a Hub dataset repository. */
export function nanoScifact(dir: string): Map<string, Uint8Array> {
  const jsonl = (file: string) => readFileSync(join(dir, file), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, string>);
  const docs = jsonl('corpus.jsonl');
  const queries = jsonl('queries.jsonl');
  const qrels = readFileSync(join(dir, 'qrels', 'test.tsv'), 'utf8').trim().split('\n').slice(1).map((line) => line.split('\t'));
  const column = (name: string, data: string[]) => ({ name, data, type: 'STRING' as const });
  const table = (columns: ReturnType<typeof column>[]) => new Uint8Array(parquetWriteBuffer({ columnData: columns }));
  return new Map([
    ['corpus/train-00000-of-00001.parquet', table([column('_id', docs.map((d) => d._id)), column('title', docs.map((d) => d.title ?? '')), column('text', docs.map((d) => d.text))])],
    ['queries/train-00000-of-00001.parquet', table([column('_id', queries.map((q) => q._id)), column('text', queries.map((q) => q.text))])],
    ['qrels/train-00000-of-00001.parquet', table([column('query-id', qrels.map((r) => r[0])), column('corpus-id', qrels.map((r) => r[1]))])],
  ]);
}


// Retrieval sets for the e2e tests: a small BEIR folder from the lesson's generated world (topics of real English
// words; SciFact itself may not be redistributed), and the same set laid out as NanoBEIR publishes it (three Parquet
// tables of a Hub dataset repository).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { makeLessonTask } from '../../src/contract/lesson/lesson-task.ts';

/** Judged queries of the small set (the page's tests count on this many). */
export const SMALL_SET_QUERIES = 12;

/** Generated documents joined into one by default: each document of the set is this many of one topic's (about 90 tokens). */
const DEFAULT_JOINED = 8;

/**
 * A BEIR folder of 12 judged queries (one per topic, each with its topic's 3 documents relevant) over 48 documents (the
 * other 4 topics' 12 are judged for no query); each document joins `joined` generated ones of its topic (8 by default,
 * so that encoding takes long enough to cancel half-way; 1 where the test is about what the page does with the
 * results, not about a long encoding). Returns the corpus, queries and qrels paths.
 */
export function smallGeneratedSet(dir: string, joined = DEFAULT_JOINED): string[] {
  const task = makeLessonTask({ seed: 7, documentsPerTopic: 3 * joined, queriesPerTopic: 1, triplets: 0 });
  const topicOf = (id: string) => id.replace(/-\d+$/, '');
  const corpus: { id: string; text: string }[] = [];
  for (let i = 0; i < task.corpus.length; i += joined) {
    const group = task.corpus.slice(i, i + joined);
    if (new Set(group.map((d) => topicOf(d.id))).size !== 1) throw new Error(`documents ${i}-${i + joined - 1} mix topics`);
    corpus.push({ id: group[0].id, text: group.map((d) => d.text).join(' ') });
  }
  const queries = task.queries.slice(0, SMALL_SET_QUERIES);
  const qrels = queries.flatMap((q) => corpus.filter((d) => task.qrels.get(q.id)!.has(d.id)).map((d) => [q.id, d.id, '1']));
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  writeFileSync(
    join(dir, 'corpus.jsonl'),
    corpus.map((d) => JSON.stringify({ _id: d.id, title: '', text: d.text })).join('\n') + '\n',
  );
  writeFileSync(join(dir, 'queries.jsonl'), queries.map((q) => JSON.stringify({ _id: q.id, text: q.text })).join('\n') + '\n');
  writeFileSync(
    join(dir, 'qrels', 'test.tsv'),
    'query-id\tcorpus-id\tscore\n' + qrels.map((row) => row.join('\t')).join('\n') + '\n',
  );
  return [join(dir, 'corpus.jsonl'), join(dir, 'queries.jsonl'), join(dir, 'qrels', 'test.tsv')];
}

/** The same small set as NanoBEIR publishes it: three Parquet tables in a Hub dataset repository. */
export function nanoBeirTables(dir: string): Map<string, Uint8Array> {
  const jsonl = (file: string) =>
    readFileSync(join(dir, file), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, string>);
  const docs = jsonl('corpus.jsonl');
  const queries = jsonl('queries.jsonl');
  const qrels = readFileSync(join(dir, 'qrels', 'test.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'));
  const column = (name: string, data: string[]) => ({ name, data, type: 'STRING' as const });
  const table = (columns: ReturnType<typeof column>[]) => new Uint8Array(parquetWriteBuffer({ columnData: columns }));
  return new Map([
    [
      'corpus/train-00000-of-00001.parquet',
      table([
        column(
          '_id',
          docs.map((d) => d._id),
        ),
        column(
          'title',
          docs.map((d) => d.title ?? ''),
        ),
        column(
          'text',
          docs.map((d) => d.text),
        ),
      ]),
    ],
    [
      'queries/train-00000-of-00001.parquet',
      table([
        column(
          '_id',
          queries.map((q) => q._id),
        ),
        column(
          'text',
          queries.map((q) => q.text),
        ),
      ]),
    ],
    [
      'qrels/train-00000-of-00001.parquet',
      table([
        column(
          'query-id',
          qrels.map((r) => r[0]),
        ),
        column(
          'corpus-id',
          qrels.map((r) => r[1]),
        ),
      ]),
    ],
  ]);
}

// The lesson's generated task as files: triplets as TSV (query, positive, negative) and the held-out set as a BEIR
// folder (corpus.jsonl, queries.jsonl, qrels/test.tsv). The CLI's `lesson --write-task` writes them; the page reads the
// same files built in (its Evaluate and Training tabs' synthetic data, no network).
import type { LessonTask } from './lesson-task.ts';

export interface TaskFile {
  /** Relative to the folder the task is written to. */
  path: string;
  text: string;
}

const jsonLines = (records: { id: string; text: string }[]) =>
  records.map((r) => JSON.stringify({ _id: r.id, text: r.text }) + '\n').join('');

export function lessonTaskFiles(task: LessonTask): TaskFile[] {
  const qrels = [...task.qrels].flatMap(([query, relevant]) =>
    [...relevant].map(([doc, grade]) => `${query}\t${doc}\t${grade}\n`),
  );
  return [
    { path: 'triplets.tsv', text: task.triplets.map((row) => row.join('\t') + '\n').join('') },
    { path: 'beir/corpus.jsonl', text: jsonLines(task.corpus) },
    { path: 'beir/queries.jsonl', text: jsonLines(task.queries) },
    { path: 'beir/qrels/test.tsv', text: 'query-id\tcorpus-id\tscore\n' + qrels.join('') },
  ];
}

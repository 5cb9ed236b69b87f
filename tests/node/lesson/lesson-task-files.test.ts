// The lesson's task written as files reads back, through the CLI's own readers, as the same triplets and held-out set.
import { describe, expect, it } from 'vitest';
import { lessonTaskFiles } from '../../../src/contract/lesson/lesson-task-files.ts';
import { makeLessonTask } from '../../../src/contract/lesson/lesson-task.ts';
import { loadBeir } from '../../../src/io/beir/beir.ts';
import { createMemorySource } from '../../../src/io/file-source.ts';
import { readTriplets } from '../../../src/io/triplets/triplets.ts';

describe('lessonTaskFiles', () => {
  const task = makeLessonTask({ seed: 3, documentsPerTopic: 5 });
  const files = new Map(lessonTaskFiles(task).map((f) => [f.path, new TextEncoder().encode(f.text)]));

  it('writes triplets that read back row for row', async () => {
    const read = await readTriplets(createMemorySource(files), 'triplets.tsv');
    expect(read.triplets.map((t) => [t.query, t.positive, t.negative])).toEqual(task.triplets);
  });

  it('writes a BEIR folder whose corpus, queries and judgements equal the task', async () => {
    const beir = new Map(
      [...files].filter(([path]) => path.startsWith('beir/')).map(([path, bytes]) => [path.slice('beir/'.length), bytes]),
    );
    const dataset = await loadBeir(createMemorySource(beir));
    expect(dataset.warnings).toEqual([]);
    expect(dataset.corpusIds).toEqual(task.corpus.map((d) => d.id));
    expect(dataset.corpusTexts).toEqual(task.corpus.map((d) => d.text));
    expect(dataset.queryTexts).toEqual(task.queries.map((q) => q.text));
    expect(dataset.qrels).toEqual(task.qrels);
  });
});

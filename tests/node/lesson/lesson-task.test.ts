// The lesson's generated retrieval task: the same for a seed, every word one WordPiece token of bert-base-uncased,
// held-out queries never asked in training, and every document of a query's topic relevant.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LESSON_FILLER, LESSON_TOPICS, makeLessonTask } from '../../../src/contract/lesson/lesson-task.ts';
import { fixturePath } from '../../helpers/fixtures.ts';

describe('lesson task', () => {
  it('is the same for a seed and differs across seeds', () => {
    expect(makeLessonTask({ seed: 4 })).toEqual(makeLessonTask({ seed: 4 }));
    expect(makeLessonTask({ seed: 4 }).triplets).not.toEqual(makeLessonTask({ seed: 5 }).triplets);
  });

  it('uses only whole-word tokens of bert-base-uncased, each word in one topic', () => {
    const vocab = new Set(readFileSync(join(fixturePath('tokenizers'), 'bert-base-uncased', 'vocab.txt'), 'utf8').split('\n'));
    const words = [...Object.values(LESSON_TOPICS).flat(), ...LESSON_FILLER];
    expect(words.filter((w) => !vocab.has(w))).toEqual([]);
    expect(new Set(words).size).toBe(words.length);
  });

  it('holds out its evaluation queries and judges every document of the topic relevant', () => {
    const task = makeLessonTask({ seed: 2, documentsPerTopic: 5, triplets: 300, queriesPerTopic: 3 });
    const topics = Object.keys(LESSON_TOPICS);
    expect(task.corpus).toHaveLength(5 * topics.length);
    expect(task.queries).toHaveLength(3 * topics.length);
    const trained = new Set(task.triplets.map(([query]) => query));
    for (const query of task.queries) expect(trained.has(query.text), query.text).toBe(false);
    const topicOfWord = new Map(Object.entries(LESSON_TOPICS).flatMap(([topic, words]) => words.map((w) => [w, topic])));
    const topicOf = (text: string) =>
      new Set(
        text
          .split(' ')
          .map((w) => topicOfWord.get(w))
          .filter(Boolean),
      );
    for (const query of task.queries) {
      const [topic] = topicOf(query.text);
      expect(topicOf(query.text).size).toBe(1);
      const relevant = [...task.qrels.get(query.id)!.keys()].sort();
      expect(relevant).toEqual(
        task.corpus
          .filter((d) => topicOf(d.text).has(topic))
          .map((d) => d.id)
          .sort(),
      );
    }
    for (const [query, positive, negative] of task.triplets) {
      const [topic] = topicOf(query);
      expect(topicOf(positive)).toEqual(new Set([topic]));
      expect(topicOf(negative).has(topic)).toBe(false);
    }
  });
});

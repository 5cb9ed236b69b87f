// SPLADE-shaped vectors of the generated retrieval set (generatedBeir: 192 documents, 32 queries of the lesson's
// topics) over the real bert-base-uncased vocabulary, made without a model: a text's own words weigh 0.5 to 2.8, and
// its expansions weigh less, as a trained SPLADE's do, half drawn from its topic's pool and half from a pool of common
// tokens every topic shares (so that documents of other topics compete for a query's top 10, and a coarse quantisation
// such as round(w) shows: overlap@10 0.88). Seeded, so every run measures the same set.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Random } from '../../src/util/random.ts';
import { sparseFromEntries, type SparseVector } from '../../src/util/sparse-vector.ts';
import { fixturePath } from './fixtures.ts';
import { generatedBeir } from './generated-data.ts';

export interface GeneratedSparseSet {
  vocab: string[];
  documents: { id: string; text: string; vector: SparseVector }[];
  queries: { id: string; text: string; vector: SparseVector }[];
}

/** Expansion ids a topic's texts draw from, and ids every topic's texts draw from. */
const TOPIC_POOL = 400;
const COMMON_POOL = 300;

function records(file: string): { _id: string; text: string }[] {
  return readFileSync(join(generatedBeir(), file), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

let cached: GeneratedSparseSet | undefined;

export function generatedSparseSet(): GeneratedSparseSet {
  if (cached) return cached;
  const vocab = readFileSync(fixturePath('tokenizers/bert-base-uncased/vocab.txt'), 'utf8').split('\n').slice(0, 30522);
  const idOf = new Map(vocab.map((token, id) => [token, id]));
  const random = new Random(41);
  const common = Array.from({ length: COMMON_POOL }, () => 1000 + random.int(vocab.length - 1000));
  const pools = new Map<string, number[]>();
  const poolOf = (topic: string) => {
    let pool = pools.get(topic);
    if (!pool) pools.set(topic, (pool = Array.from({ length: TOPIC_POOL }, () => 1000 + random.int(vocab.length - 1000))));
    return pool;
  };
  const encode = (text: string, topic: string, side: 'document' | 'query'): SparseVector => {
    const entries: [number, number][] = [];
    for (const word of text.toLowerCase().split(/\W+/)) {
      const id = idOf.get(word);
      if (id !== undefined) entries.push([id, (side === 'query' ? 0.8 : 0.5) + (side === 'query' ? 2 : 2.3) * random.next()]);
    }
    const pool = poolOf(topic);
    const expansions = side === 'query' ? 15 : 60;
    for (let e = 0; e < expansions; e++) {
      const from = random.next() < 0.5 ? common : pool;
      entries.push([from[random.int(from.length)], 1.2 * random.next() ** 2]);
    }
    if (side === 'document')
      for (let e = 0; e < 20; e++) entries.push([1000 + random.int(vocab.length - 1000), 0.3 * random.next() ** 2]);
    const largest = new Map<number, number>(); // SPLADE pools by max: an id keeps its largest weight
    for (const [id, w] of entries) largest.set(id, Math.max(largest.get(id) ?? 0, w));
    return sparseFromEntries(largest);
  };
  const topicOf = (id: string) => id.replace(/^q-/, '').replace(/-\d+$/, '');
  cached = {
    vocab,
    documents: records('corpus.jsonl').map((r) => ({
      id: r._id,
      text: r.text,
      vector: encode(r.text, topicOf(r._id), 'document'),
    })),
    queries: records('queries.jsonl').map((r) => ({ id: r._id, text: r.text, vector: encode(r.text, topicOf(r._id), 'query') })),
  };
  return cached;
}

// The teaching lesson's retrieval task, generated (seeded, labelled synthetic, no licence to worry about): topics of
// real English words; documents mix one topic's words with common words; a query names a few of its topic's words
// and every document of that topic is relevant, so a model must learn which words belong together (expansion), not
// only match the query's own words.

import { Random } from '../../util/random.ts';

/** Sixteen topics of ten words each, every word one token of bert-base-uncased's WordPiece vocabulary. */
export const LESSON_TOPICS: Record<string, readonly string[]> = {
  ocean: ['whale', 'coral', 'tide', 'reef', 'shark', 'wave', 'salt', 'shell', 'dolphin', 'harbor'],
  music: ['guitar', 'piano', 'melody', 'drum', 'violin', 'chorus', 'rhythm', 'concert', 'song', 'band'],
  kitchen: ['oven', 'flour', 'butter', 'recipe', 'bread', 'soup', 'spoon', 'cake', 'sugar', 'pan'],
  space: ['planet', 'orbit', 'rocket', 'comet', 'galaxy', 'moon', 'astronaut', 'telescope', 'star', 'gravity'],
  garden: ['tomato', 'seed', 'soil', 'flower', 'rose', 'fence', 'weed', 'harvest', 'leaf', 'root'],
  football: ['goal', 'striker', 'referee', 'penalty', 'stadium', 'league', 'coach', 'match', 'ball', 'keeper'],
  medicine: ['doctor', 'fever', 'vaccine', 'nurse', 'patient', 'surgery', 'clinic', 'pill', 'blood', 'heart'],
  weather: ['rain', 'storm', 'cloud', 'snow', 'thunder', 'wind', 'fog', 'frost', 'humid', 'forecast'],
  computers: ['software', 'keyboard', 'memory', 'processor', 'screen', 'code', 'server', 'network', 'disk', 'laptop'],
  farming: ['tractor', 'wheat', 'barn', 'cattle', 'sheep', 'horse', 'corn', 'hay', 'farmer', 'milk'],
  law: ['judge', 'court', 'lawyer', 'trial', 'verdict', 'jury', 'witness', 'crime', 'prison', 'appeal'],
  travel: ['airport', 'passport', 'hotel', 'luggage', 'ticket', 'tourist', 'flight', 'beach', 'map', 'train'],
  painting: ['canvas', 'brush', 'portrait', 'museum', 'colour', 'artist', 'sketch', 'gallery', 'ink', 'frame'],
  forest: ['oak', 'pine', 'deer', 'wolf', 'moss', 'bark', 'owl', 'trail', 'timber', 'branch'],
  finance: ['bank', 'loan', 'interest', 'stock', 'market', 'profit', 'tax', 'budget', 'credit', 'coin'],
  chemistry: ['acid', 'atom', 'molecule', 'carbon', 'oxygen', 'metal', 'crystal', 'reaction', 'gas', 'laboratory'],
};

/** Words of no topic, spread through every document (what a sparse model should learn to weigh low). */
export const LESSON_FILLER: readonly string[] = [
  'the',
  'a',
  'with',
  'and',
  'of',
  'near',
  'some',
  'new',
  'old',
  'many',
  'small',
  'big',
  'this',
  'that',
  'very',
];

export interface LessonTask {
  /** (query, relevant document, document of another topic) for training. */
  triplets: [string, string, string][];
  /** Held-out evaluation: a corpus, queries not seen in training, and their relevant documents (every one of the topic). */
  corpus: { id: string; text: string }[];
  queries: { id: string; text: string }[];
  qrels: Map<string, Map<string, number>>;
}

export interface LessonTaskOptions {
  seed: number;
  /** Documents per topic in the corpus (default 12). */
  documentsPerTopic?: number;
  /** Training triplets (default 512). */
  triplets?: number;
  /** Held-out queries per topic (default 2). */
  queriesPerTopic?: number;
}

/** Deterministic for a seed: the same task on every machine. */
export function makeLessonTask(options: LessonTaskOptions): LessonTask {
  const random = new Random(options.seed);
  const topics = Object.keys(LESSON_TOPICS);
  const pick = <T>(items: readonly T[]) => items[random.int(items.length)];
  const sample = (items: readonly string[], n: number) => shuffled(items, random).slice(0, n);
  const documentOf = (topic: string) =>
    shuffled([...sample(LESSON_TOPICS[topic], 5), ...sample(LESSON_FILLER, 4)], random).join(' ');
  // a query names two of its topic's words; held-out queries use pairs training never asked
  const pairs = new Map(topics.map((topic) => [topic, shuffled(allPairs(LESSON_TOPICS[topic]), random)]));
  const heldOutPairs = options.queriesPerTopic ?? 2;
  const corpus: LessonTask['corpus'] = [];
  const topicOf = new Map<string, string>();
  for (const topic of topics) {
    for (let i = 0; i < (options.documentsPerTopic ?? 12); i++) {
      const id = `${topic}-${i}`;
      corpus.push({ id, text: documentOf(topic) });
      topicOf.set(id, topic);
    }
  }
  const queries: LessonTask['queries'] = [];
  const qrels: LessonTask['qrels'] = new Map();
  for (const topic of topics) {
    pairs
      .get(topic)!
      .slice(0, heldOutPairs)
      .forEach((pair, i) => {
        const id = `q-${topic}-${i}`;
        queries.push({ id, text: pair.join(' ') });
        qrels.set(id, new Map(corpus.filter((d) => topicOf.get(d.id) === topic).map((d) => [d.id, 1])));
      });
  }
  const triplets: LessonTask['triplets'] = [];
  for (let i = 0; i < (options.triplets ?? 512); i++) {
    const topic = pick(topics);
    const other = pick(topics.filter((t) => t !== topic));
    const query = pick(pairs.get(topic)!.slice(heldOutPairs)).join(' ');
    triplets.push([query, documentOf(topic), documentOf(other)]);
  }
  return { triplets, corpus, queries, qrels };
}

function allPairs(words: readonly string[]): [string, string][] {
  return words.flatMap((a, i) => words.slice(i + 1).map((b): [string, string] => [a, b]));
}

function shuffled<T>(items: readonly T[], random: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

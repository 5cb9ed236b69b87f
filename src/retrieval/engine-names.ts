// How each search engine names the dimensions of a sparse vector (the token string, Elasticsearch's renamed token, or
// the vocabulary id), and the names that several vocabulary ids of a file would share: the exports refuse such a
// collision, or say it aloud where the engine itself would add the weights, instead of summing in silence.
import type { SparseVector } from '../util/sparse-vector.ts';

/** id -> token string, e.g. a tokenizer's vocabulary. */
export type Vocabulary = readonly string[];

/** `token`: the token string as it is; `elasticsearch`: Elasticsearch's name for it; `id`: the vocabulary id in decimal. */
export type NameRule = 'token' | 'elasticsearch' | 'id';

/** The token of vocabulary id `id`; an id beyond the vocabulary is an error naming both. */
export function tokenOf(vocab: Vocabulary, id: number): string {
  const token = vocab[id];
  if (token === undefined) throw new Error(`vocabulary has no token for id ${id} (size ${vocab.length})`);
  return token;
}

/**
 * Elasticsearch's name for a token: every "." becomes "__", as its own inference names tokens
 * (elastic/elasticsearch, x-pack/plugin/ml/src/main/java/org/elasticsearch/xpack/ml/inference/nlp/
 * TextExpansionProcessor.java, buildSanitizedVocabMap: `replace(".", "__")`; pull request #94389), because
 * `sparse_vector` and `rank_features` refuse a feature name with a dot ("fields do not support dots in feature names").
 */
export function elasticsearchName(token: string): string {
  return token.replaceAll('.', '__');
}

export function nameOf(rule: NameRule, vocab: Vocabulary, id: number): string {
  if (rule === 'id') {
    tokenOf(vocab, id);
    return String(id);
  }
  const token = tokenOf(vocab, id);
  return rule === 'elasticsearch' ? elasticsearchName(token) : token;
}

/** One name that several vocabulary ids of a set of vectors would take. */
export interface NameCollision {
  name: string;
  /** The ids, ascending. */
  ids: number[];
}

/** The names under `rule` that more than one vocabulary id used by `vectors` takes, with those ids. */
export function nameCollisions(rule: NameRule, vocab: Vocabulary, vectors: readonly SparseVector[]): NameCollision[] {
  if (rule === 'id') return [];
  const used = new Set<number>();
  for (const vector of vectors) for (const id of vector.indices) used.add(id);
  const idsByName = new Map<string, number[]>();
  for (const id of [...used].sort((a, b) => a - b)) {
    const name = nameOf(rule, vocab, id);
    const ids = idsByName.get(name);
    if (ids) ids.push(id);
    else idsByName.set(name, [id]);
  }
  return [...idsByName].filter(([, ids]) => ids.length > 1).map(([name, ids]) => ({ name, ids }));
}

/** The first `limit` collisions in words: `"__" from ids 13 ("."), 1035 ("__")`. */
export function describeCollisions(collisions: readonly NameCollision[], vocab: Vocabulary, limit = 5): string {
  const shown = collisions
    .slice(0, limit)
    .map((c) => `${JSON.stringify(c.name)} from ids ${c.ids.map((id) => `${id} (${JSON.stringify(vocab[id])})`).join(', ')}`);
  const more = collisions.length > limit ? `; and ${collisions.length - limit} more` : '';
  return shown.join('; ') + more;
}

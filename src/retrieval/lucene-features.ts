// Elasticsearch and OpenSearch documents for their Lucene FeatureField fields, as `_bulk` NDJSON (an action line
// {"index": {"_id"}}, then the source {"<field>": {name: weight}, "text"}): `es` names tokens as Elasticsearch's own
// inference does (for `sparse_vector` or `rank_features`), `opensearch` keeps token strings (`rank_features`), and
// `opensearch-ids` keys by vocabulary id (OpenSearch 3.3's `sparse_vector`, whose keys must be non-negative integers).
import { nameOf, type NameRule, type Vocabulary } from './engine-names.ts';
import { weightsObjectText } from './weights-json.ts';
import type { SparseVector } from '../util/sparse-vector.ts';

export type LuceneFlavour = 'es' | 'opensearch' | 'opensearch-ids';

export const LUCENE_NAME_RULES: Record<LuceneFlavour, NameRule> = {
  es: 'elasticsearch',
  opensearch: 'token',
  'opensearch-ids': 'id',
};

/**
 * The smallest weight Lucene's FeatureField takes: a positive normal float32 (Float.MIN_NORMAL); a smaller, non-finite
 * or non-positive weight is refused with the whole document (lucene/core/.../document/FeatureField.java).
 */
export const FEATURE_FIELD_MIN = 2 ** -126;

/** The longest `_id`, in UTF-8 bytes, that Elasticsearch and OpenSearch accept. */
export const MAX_ID_BYTES = 512;

/** The two `_bulk` lines of one document, and how many of its entries FeatureField cannot hold (left out). */
export function bulkDocument(
  id: string,
  text: string,
  vector: SparseVector,
  vocab: Vocabulary,
  options: { flavour: LuceneFlavour; field: string },
): { lines: [string, string]; dropped: number } {
  const bytes = new TextEncoder().encode(id).length;
  if (bytes === 0 || bytes > MAX_ID_BYTES)
    throw new Error(
      `record id ${JSON.stringify(id.slice(0, 40))}… is ${bytes} bytes; Elasticsearch and OpenSearch take a _id of 1 to ${MAX_ID_BYTES} UTF-8 bytes: shorten it in the input`,
    );
  const rule = LUCENE_NAME_RULES[options.flavour];
  const entries: [string, number][] = [];
  let dropped = 0;
  for (let i = 0; i < vector.indices.length; i++) {
    const weight = vector.values[i];
    if (!(weight >= FEATURE_FIELD_MIN) || !Number.isFinite(weight)) {
      dropped++;
      continue;
    }
    entries.push([nameOf(rule, vocab, vector.indices[i]), weight]);
  }
  const action = `{"index":{"_id":${JSON.stringify(id)}}}`;
  const source = `{${JSON.stringify(options.field)}:${weightsObjectText(entries)},"text":${JSON.stringify(text)}}`;
  return { lines: [action, source], dropped };
}

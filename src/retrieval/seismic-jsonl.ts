// Seismic's JSONL input (TusKANNy/seismic, README "Convert the Data" and src/json_utils.rs JsonSparseVector): one
// {"id", "content", "vector": {token: weight}} per line, read by SeismicIndex.build. Seismic numbers the distinct
// tokens of the file itself; the default SeismicIndex keeps those numbers in u16 (src/inverted_index_wrapper.rs,
// build_token_map: "The number of different tokens exceeds 2^16" for 65,536 or more), SeismicIndexLV in u32.
import { nameCollisions, tokenOf, type NameCollision, type Vocabulary } from './engine-names.ts';
import { weightsObjectText } from './weights-json.ts';
import type { SparseVector } from '../util/sparse-vector.ts';

/** The most distinct tokens the default SeismicIndex (u16 component ids) builds from: fewer than 2^16. */
export const SEISMIC_U16_TOKENS = 65535;

/** The token length Seismic's README and PythonUsage build query arrays with (numpy dtype 'U30' cuts longer ones). */
export const SEISMIC_QUERY_TOKEN_CHARS = 30;

export function seismicLine(id: string, text: string, vector: SparseVector, vocab: Vocabulary): string {
  const entries: [string, number][] = [];
  for (let i = 0; i < vector.indices.length; i++) entries.push([tokenOf(vocab, vector.indices[i]), vector.values[i]]);
  return `{"id":${JSON.stringify(id)},"content":${JSON.stringify(text)},"vector":${weightsObjectText(entries)}}`;
}

/** What Seismic will make of a file of `vectors`: its distinct tokens, the long ones, and ids sharing a token. */
export function seismicFileFacts(
  vectors: readonly SparseVector[],
  vocab: Vocabulary,
): { distinctTokens: number; longTokens: string[]; collisions: NameCollision[] } {
  const tokens = new Set<string>();
  for (const vector of vectors) for (const id of vector.indices) tokens.add(tokenOf(vocab, id));
  const longTokens = [...tokens].filter((t) => [...t].length > SEISMIC_QUERY_TOKEN_CHARS);
  return { distinctTokens: tokens.size, longTokens, collisions: nameCollisions('token', vocab, vectors) };
}

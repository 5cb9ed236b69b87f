// OpenSearch's idf.json (token text -> weight) read as a query table over a tokenizer's ids: what its inference-free
// tokenizer repos (opensearch-neural-sparse-tokenizer-v1) and doc-v2/v3 models keep beside their tokenizer.
import { clip } from '../format-error.ts';
import type { TextTokenizer } from '../tokenizer/tokenizer.ts';
import { describeJsonValue } from '../../util/json-value.ts';

/**
 * One weight per id of `tokenizer` from idf.json's object: every weight a finite number ≥ 0, every token one the
 * tokenizer has (a token it lacks would land on [UNK] in sentence-transformers' from_json); ids not listed weigh 0.
 */
export function queryTableFromIdfJson(json: unknown, tokenizer: TextTokenizer, where: string): Float32Array {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error(`${where}: must be a JSON object of token -> weight, got ${describeJsonValue(json)}`);
  const table = new Float32Array(tokenizer.vocabSize);
  const missing: string[] = [];
  let count = 0;
  for (const [token, weight] of Object.entries(json)) {
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0)
      throw new Error(
        `${where}: the weight of "${clip(token)}" is ${describeJsonValue(weight)}; every weight must be a finite ` +
          'number ≥ 0 (fix or regenerate the file, e.g. with splade-lab idf)',
      );
    const id = tokenizer.tokenToId(token);
    if (id === undefined) missing.push(token);
    else {
      table[id] = weight;
      count++;
    }
  }
  if (missing.length > 0)
    throw new Error(
      `${where}: ${missing.length} tokens are not in the tokenizer (${missing
        .slice(0, 5)
        .map((t) => `"${clip(t, 30)}"`)
        .join(', ')}` +
        `${missing.length > 5 ? ', ...' : ''}): the file was made for another tokenizer; use the tokenizer it came with`,
    );
  if (count === 0) throw new Error(`${where}: holds no token weights`);
  return table;
}

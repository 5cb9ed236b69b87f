// An independent float64 reference of `splade-lab idf`: BEIR documents (title and text) tokenized without special
// tokens, each token counted once per document, weight ln(1 + (N - df + 0.5) / (df + 0.5)) by log1p; special tokens out;
// a token in no document weighs 0 (OpenSearch's get_idf.py leaves it out, sentence-transformers' from_json reads 0).
import { loadBeir } from '../../src/io/beir/beir.ts';
import { createFolderSource } from '../../src/io/file-source-node.ts';
import type { TextTokenizer } from '../../src/io/tokenizer/tokenizer.ts';

export async function idfReference(beirFolder: string, tokenizer: TextTokenizer): Promise<Map<string, number>> {
  const { corpusTexts } = await loadBeir(createFolderSource(beirFolder), 'test');
  const texts = corpusTexts.filter((text) => text.trim() !== '');
  const df = new Map<number, number>();
  for (const text of texts)
    for (const id of new Set(tokenizer.encode(text, { addSpecialTokens: false }).ids)) df.set(id, (df.get(id) ?? 0) + 1);
  const special = new Set(Object.values(tokenizer.specialIds));
  const weights = new Map<string, number>();
  for (let id = 0; id < tokenizer.vocabSize; id++) {
    const token = tokenizer.idToToken(id);
    if (token === undefined || special.has(id)) continue;
    const count = df.get(id) ?? 0;
    weights.set(token, count === 0 ? 0 : Math.log1p((texts.length - count + 0.5) / (count + 0.5)));
  }
  return weights;
}

/** Every entry of a written idf.json equals the reference's (to 1e-12 relative), and no entry is missing or extra. */
export function idfMismatches(written: Record<string, number>, reference: Map<string, number>): string[] {
  const problems: string[] = [];
  for (const [token, weight] of reference) {
    const got = written[token];
    if (got === undefined || Math.abs(got - weight) > 1e-12 * Math.max(1, Math.abs(weight)))
      problems.push(`${token}: ${got} where the reference has ${weight}`);
  }
  for (const token of Object.keys(written)) if (!reference.has(token)) problems.push(`${token}: not in the reference`);
  return problems;
}

// The static query weights of an inference-free run: IDF over the training data's documents (its positives and
// negatives, each text once) or over a given corpus (`--idf-from`, idf-table-node.ts), special tokens at 0.
import type { TextTokenizer } from '../../io/tokenizer/tokenizer.ts';
import { rowNegatives } from '../../io/triplets/triplets.ts';
import { documentFrequencyOf, idfWeights, smallIdfWarning } from '../../retrieval/idf-table.ts';
import type { TrainingData } from '../../train/splade/training-loop.ts';
import { crc32 } from '../../util/crc32.ts';

/** A table of one weight per token and what it was made from (named in the recipe and the saved model). */
export interface QueryWeights {
  weights: Float32Array;
  source: string;
  /** The documents its IDF was counted over (a table from elsewhere: absent). */
  documents?: number;
}

/**
 * Float64 idf weights (over `documents` documents) as the run's float32 table, special tokens at 0 (a query's [CLS]
 * and [SEP] weigh nothing).
 */
export function queryWeightsOf(
  weights: Float64Array,
  tokenizer: TextTokenizer,
  source: string,
  documents?: number,
): QueryWeights {
  const table = Float32Array.from(weights);
  for (const id of Object.values(tokenizer.specialIds)) if (id !== null) table[id] = 0;
  return { weights: table, source, ...(documents !== undefined ? { documents } : {}) };
}

/** The run's note when its query table's IDF was counted over too few documents (smallIdfWarning), or undefined. */
export function smallIdfNote(table: QueryWeights): string | undefined {
  const warning = table.documents === undefined ? undefined : smallIdfWarning(table.documents);
  return warning && `the query table (${table.source}): ${warning}`;
}

/** `table` with one weight per row of a head of `vocabSize` rows (ids past the tokenizer's end weigh 0). */
export function widenQueryWeights(table: QueryWeights, vocabSize: number): QueryWeights {
  if (table.weights.length >= vocabSize) return table;
  const weights = new Float32Array(vocabSize);
  weights.set(table.weights);
  return { ...table, weights };
}

/** CRC-32 of the table's float32 bytes (the recipe keeps it, so that a resume uses the same table). */
export function queryWeightsCrc(table: QueryWeights): number {
  const { weights } = table;
  return crc32(new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength));
}

/** IDF over the training data's documents: every positive and negative text once, rows read 1024 at a time. */
export async function trainingDataIdf(data: TrainingData, tokenizer: TextTokenizer): Promise<QueryWeights> {
  if (data.source.cacheOnly)
    throw new Error(`the rows of ${data.fingerprint.name} are not loaded: pick the file again to weigh its tokens`);
  const texts = new Set<string>();
  for (let start = 0; start < data.source.count; start += 1024) {
    const indices = Array.from({ length: Math.min(1024, data.source.count - start) }, (_, i) => start + i);
    for (const row of await data.source.read(indices)) {
      texts.add(row.positive);
      for (const negative of rowNegatives(row)) texts.add(negative);
    }
  }
  const tokenized = [...texts].map((text) => tokenizer.encode(text, { addSpecialTokens: false }).ids);
  const { df, documents } = documentFrequencyOf(tokenized, tokenizer.vocabSize);
  const source = `idf over the ${documents} documents of ${data.fingerprint.name}`;
  return queryWeightsOf(idfWeights(df, documents), tokenizer, source, documents);
}

// Memory an evaluation will take, known before the corpus is encoded: the host's sparse vectors and inverted index
// (extrapolated from a measured sample of documents), and the GPU's encoding buffers; refused with advice when over
// the budget. The host only ever keeps sparse (optionally pruned) vectors, never a dense B x V block.
import { formatBytes } from '../../util/format-bytes.ts';

/** Host memory the page lets one evaluation take (a browser tab holds a few GiB at most). */
export const EVAL_PAGE_MEMORY_BUDGET = 1024 * 2 ** 20;

/** Bytes of one stored sparse entry: a u32 vocabulary id and an f32 weight (vectors and postings alike). */
const ENTRY_BYTES = 8;

/** Headroom over the sample's mean: documents later in the corpus may be longer or denser. */
const SAMPLE_MARGIN = 1.5;

export interface EvaluationMemory {
  /** Sparse vectors of the queries and the documents. */
  vectorBytes: number;
  /** Postings of the inverted index (plus its offsets). */
  indexBytes: number;
  /** GPU buffers of one encoding batch (the model itself is already loaded). */
  gpuBytes: number;
  totalBytes: number;
  /** Active dimensions per document measured on the sample. */
  sampleActiveDims: number;
}

export interface EvaluationShape {
  documents: number;
  queries: number;
  vocabSize: number;
  hidden: number;
  intermediate: number;
  batchSize: number;
  documentLength: number;
  /** Weights kept per vector (0: all). */
  prune: number;
}

/** The estimate from a sample's mean active dimensions per document (queries are assumed no denser). */
export function estimateEvaluationMemory(shape: EvaluationShape, sampleActiveDims: number): EvaluationMemory {
  const perDoc = Math.min(shape.vocabSize, shape.prune > 0 ? shape.prune : Infinity, Math.ceil(sampleActiveDims * SAMPLE_MARGIN));
  const vectorBytes = (shape.documents + shape.queries) * perDoc * ENTRY_BYTES;
  const indexBytes = shape.documents * perDoc * ENTRY_BYTES + 4 * (shape.vocabSize + 1);
  const { batchSize: B, documentLength: T, hidden: d, intermediate, vocabSize: V } = shape;
  const gpuBytes = 4 * B * (2 * V + T * (12 * d + intermediate));
  return { vectorBytes, indexBytes, gpuBytes, totalBytes: vectorBytes + indexBytes + gpuBytes, sampleActiveDims };
}

/** Too much memory for this evaluation: the figures, and what would make it fit. */
export class EvaluationTooLargeError extends Error {
  override name = 'EvaluationTooLargeError';
}

/** Refuses an estimate over `budget`, saying what each part needs and which prune would fit. */
export function checkEvaluationMemory(setName: string, shape: EvaluationShape, memory: EvaluationMemory, budget: number): void {
  if (memory.totalBytes <= budget) return;
  const perEntry = (shape.documents * 2 + shape.queries) * ENTRY_BYTES;
  const fittingPrune = Math.floor((budget - memory.gpuBytes - 4 * (shape.vocabSize + 1)) / perEntry);
  const prune = fittingPrune >= 16 ? `keep only the ${Math.min(fittingPrune, 1024)} largest weights per vector (prune), ` : '';
  throw new EvaluationTooLargeError(
    `Evaluating ${setName} (${shape.documents} documents, about ${Math.round(memory.sampleActiveDims)} active dimensions each) needs about ` +
      `${formatBytes(memory.totalBytes)}: vectors ${formatBytes(memory.vectorBytes)}, index ${formatBytes(memory.indexBytes)}, GPU ${formatBytes(memory.gpuBytes)}; ` +
      `this allows ${formatBytes(budget)}. To fit: ${prune}use shorter documents, or a smaller set.`,
  );
}

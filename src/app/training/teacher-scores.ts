// Scores training rows with a cross-encoder teacher on the GPU: every (query, passage) pair of a row, its positive
// then its negatives, as raw logits (never squashed); pairs batched by length so that little padding is computed.
import type { GpuContext, Owned } from '../../gpu/context.ts';
import type { FileSource } from '../../io/file-source.ts';
import { rowNegatives, type Triplet } from '../../io/triplets/triplets.ts';
import { GpuClassifierModel, GpuClassifierPass } from '../../model/gpu-classifier.ts';
import { loadClassifier, type LoadedClassifier } from '../../model/load-classifier.ts';

export interface TeacherScoreOptions {
  /** Pairs per GPU batch. */
  batchSize: number;
  /** Tokens per pair, special tokens included; longer pairs are truncated longest-first, as transformers does. */
  maxLength: number;
  onProgress?: (done: number, total: number) => void;
  /**
   * Scores already known by pair index (a progress file's): a batch whose pairs all have one is not run again. The
   * batches are the same for the same rows, teacher, batchSize and maxLength, so the scores equal an uninterrupted run's.
   */
  known?: ReadonlyMap<number, number>;
  /** Told each batch the GPU scored (pair indices into the rows' pairs, and their scores), and awaited. */
  onBatch?: (pairs: readonly number[], scores: readonly number[]) => Promise<void>;
}

/** What the teacher is, as its files say. */
export interface TeacherFacts {
  architecture: string;
  numLabels: number;
  labels: string[];
  /** sentence-transformers' saved activation, not applied ("none saved" when absent). */
  activation: string;
  notes: string[];
  unusedTensors: string[];
}

export interface TeacherScores {
  /** Per row: the teacher's score of (query, positive), then of (query, negative_i): n + 1 raw logits. */
  scores: number[][];
  pairs: number;
  /** Pairs longer than maxLength, truncated. */
  truncated: number;
  teacher: TeacherFacts;
}

/** Pair lengths are padded up to a multiple of this, so that batches of near lengths share one pass. */
const LENGTH_STEP = 8;

/**
 * The score of one pair from its logits: the logit itself (one label), or logit 1 - logit 0 (two labels: the log-odds
 * of label 1, which softmax would squash into its probability). More labels have no one score: refused.
 */
export function pairScore(logits: ArrayLike<number>, row: number, numLabels: number): number {
  return numLabels === 1 ? logits[row] : logits[row * 2 + 1] - logits[row * 2];
}

/** How pairScore makes a score, in words (a progress file records it: scores made by another rule are not reused). */
export function labelRule(numLabels: number): string {
  return numLabels === 1 ? 'the logit' : 'logit 1 - logit 0';
}

/** The pairs of `rows`, in the order scoreRows numbers them: each row's positive, then its negatives. */
export function pairCount(rows: readonly Triplet[]): number {
  return rows.reduce((sum, row) => sum + 1 + rowNegatives(row).length, 0);
}

/** The teacher's facts, for the report. */
export function teacherFacts(loaded: LoadedClassifier): TeacherFacts {
  const { classifier, activation } = loaded;
  return {
    architecture: classifier.architecture,
    numLabels: classifier.numLabels,
    labels: classifier.labels,
    activation: activation ? `${activation.name} (${activation.from}; not applied: scores are raw logits)` : 'none saved',
    notes: loaded.notes,
    unusedTensors: loaded.unusedTensors,
  };
}

/** The cross-encoder in `source`, refused when its labels give no one score (more than two). */
export async function loadTeacher(source: FileSource): Promise<LoadedClassifier> {
  const loaded = await loadClassifier(source);
  const { numLabels } = loaded.classifier;
  if (numLabels > 2) {
    throw new Error(
      `${source.label}: the teacher has ${numLabels} labels (${loaded.classifier.labels.join(', ')}); a relevance score ` +
        'comes from one logit, or from two (logit 1 - logit 0)',
    );
  }
  return loaded;
}

/** Scores every row's pairs with the loaded teacher on `ctx`; GPU buffers are freed before it returns. */
export async function scoreRows(
  ctx: GpuContext,
  loaded: LoadedClassifier,
  rows: readonly Triplet[],
  options: TeacherScoreOptions,
): Promise<TeacherScores> {
  const { numLabels } = loaded.classifier;
  const maxLength = Math.min(options.maxLength, loaded.config.maxPositions);
  const pairs = rows.flatMap((row) => [row.positive, ...rowNegatives(row)].map((passage) => ({ query: row.query, passage })));
  let truncated = 0;
  const encodings = pairs.map(({ query, passage }) => {
    const full = loaded.tokenizer.encode(query, { pair: passage });
    if (full.ids.length <= maxLength) return full;
    truncated++;
    return loaded.tokenizer.encode(query, { pair: passage, maxLength });
  });
  const order = encodings.map((_, i) => i).sort((a, b) => encodings[a].ids.length - encodings[b].ids.length);
  const flat = new Float64Array(pairs.length);
  const weights = ctx.owned(() => new GpuClassifierModel(ctx, loaded));
  let current: { T: number; B: number; pass: Owned<GpuClassifierPass> } | null = null;
  const { known } = options;
  try {
    for (let start = 0; start < order.length; start += options.batchSize) {
      const batch = order.slice(start, start + options.batchSize);
      if (known && batch.every((pair) => known.has(pair))) {
        batch.forEach((pair) => (flat[pair] = known.get(pair)!));
        options.onProgress?.(Math.min(start + batch.length, order.length), order.length);
        continue;
      }
      const longest = encodings[batch[batch.length - 1]].ids.length;
      const T = Math.min(maxLength, Math.ceil(longest / LENGTH_STEP) * LENGTH_STEP);
      const B = batch.length;
      if (!current || current.T !== T || current.B !== B) {
        current?.pass.destroy();
        current = { T, B, pass: ctx.owned(() => new GpuClassifierPass(weights.value, B, T, `teacher B${B} T${T}`)) };
      }
      const ids = new Int32Array(B * T).fill(loaded.tokenizer.specialIds.pad);
      const mask = new Uint8Array(B * T);
      const types = new Int32Array(B * T);
      batch.forEach((pair, b) => {
        const e = encodings[pair];
        ids.set(e.ids, b * T);
        mask.set(e.attentionMask, b * T);
        types.set(e.typeIds, b * T);
      });
      const logits = await current.pass.value.run(ids, mask, types);
      const scores = batch.map((pair, b) => (flat[pair] = pairScore(logits, b, numLabels)));
      await options.onBatch?.(batch, scores);
      options.onProgress?.(Math.min(start + B, order.length), order.length);
    }
  } finally {
    current?.pass.destroy();
    weights.destroy();
  }
  let next = 0;
  const scores = rows.map((row) => Array.from({ length: 1 + rowNegatives(row).length }, () => flat[next++]));
  return { scores, pairs: pairs.length, truncated, teacher: teacherFacts(loaded) };
}

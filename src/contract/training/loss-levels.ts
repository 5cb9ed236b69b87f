// The ranking loss that equal student scores give, per loss: the level a stalled run's loss sits at, which the
// alarms compare the loss with (contrastive: chance, log((1 + n)B); MarginMSE: the mean squared teacher margin;
// KL: T² times the KL of the teacher's softmax from the uniform one). Pure, for the trainer and the alarm rules.
import type { RankingLossKind } from './recipe.ts';
import { takesScoreLists, teacherMargins } from './teacher-labels.ts';

/**
 * The candidates each query of the in-batch contrastive loss is scored against: every document of its micro-batch,
 * the B positives and the n·B negatives, (1 + n)·B.
 */
export function contrastiveCandidates(B: number, negatives: number): number {
  return (1 + negatives) * B;
}

/** The contrastive loss when every candidate scores alike (chance): log((1 + n)·B). */
export function contrastiveChance(B: number, negatives: number): number {
  return Math.log(contrastiveCandidates(B, negatives));
}

/** T² · log(1 + n): the most KL(teacher ‖ equal student scores) can be over a query's 1 + n candidates, times T². */
export function klCeiling(negatives: number, temperature: number): number {
  return temperature * temperature * Math.log(1 + negatives);
}

/**
 * The ranking loss of one micro-batch when every student score of a query is equal, from its teacher labels (B rows
 * of n margins, or of n + 1 scores [pos, neg_1..n]):
 * - contrastive: log((1 + n)·B), whatever the labels;
 * - MarginMSE: mean over the B·n margins of m² (every student margin 0), the margins of score lists taken first;
 * - KL: T² · mean over the rows of KL(softmax(teacher / T) ‖ uniform over 1 + n) = Σ_j p_j log p_j + log(1 + n).
 */
export function equalScoresLoss(
  loss: RankingLossKind,
  B: number,
  negatives: number,
  temperature: number,
  teacher?: ArrayLike<number>,
): number {
  if (loss === 'contrastive') return contrastiveChance(B, negatives);
  const n = negatives;
  if (!teacher) throw new Error(`equalScoresLoss: a ${loss} batch needs its teacher labels`);
  if (loss === 'marginmse') {
    const margins = takesScoreLists(loss, n, teacher.length / B) ? teacherMargins(teacher, B, n) : teacher;
    if (margins.length !== B * n) throw new RangeError(`equalScoresLoss: ${teacher.length} teacher labels for ${B} rows of ${n}`);
    let sum = 0;
    for (let i = 0; i < margins.length; i++) sum += margins[i] * margins[i];
    return sum / (B * n);
  }
  if (teacher.length !== B * (n + 1))
    throw new RangeError(`equalScoresLoss: ${teacher.length} teacher scores for ${B} rows of ${n + 1}`);
  const T = temperature;
  let kl = 0;
  for (let b = 0; b < B; b++) {
    const row = Array.from({ length: n + 1 }, (_, j) => teacher[b * (n + 1) + j] / T);
    const max = Math.max(...row);
    const logZ = max + Math.log(row.reduce((sum, x) => sum + Math.exp(x - max), 0));
    for (const x of row) kl += Math.exp(x - logZ) * (x - logZ);
    kl += Math.log(n + 1);
  }
  return (T * T * kl) / B;
}

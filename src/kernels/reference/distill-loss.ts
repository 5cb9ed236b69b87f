// Float64 reference: distillation from teacher scores over each query's own documents (its positive and negatives).
// Scores are (B, N), N = (1 + n)·B: query i's positive is column i, its negative c (0-based) column (1 + c)·B + i.

/** Column of query i's document j in a (B, N) score matrix: j = 0 its positive, j = 1..n its negatives. */
export function ownColumn(i: number, j: number, B: number): number {
  return j * B + i;
}

/**
 * MarginMSE (sentence-transformers' MarginMSELoss, one term per negative): the mean over the batch and the n
 * negatives of (s(q, pos) - s(q, neg_c) - margin_c)², margins (B, n).
 */
export function marginMseForward(scores: Float64Array, margins: ArrayLike<number>, B: number, n: number): number {
  const N = (1 + n) * B;
  let total = 0;
  for (let i = 0; i < B; i++)
    for (let c = 0; c < n; c++) {
      const r = scores[i * N + i] - scores[i * N + ownColumn(i, c + 1, B)] - margins[i * n + c];
      total += r * r;
    }
  return total / (B * n);
}

/** dscores (B, N) = dloss · dL/dscores: 2r/(Bn) on the positive, -2r/(Bn) on each negative, 0 elsewhere. */
export function marginMseBackward(
  scores: Float64Array,
  margins: ArrayLike<number>,
  B: number,
  n: number,
  dloss = 1,
): Float64Array {
  const N = (1 + n) * B;
  const dscores = new Float64Array(B * N);
  for (let i = 0; i < B; i++)
    for (let c = 0; c < n; c++) {
      const column = ownColumn(i, c + 1, B);
      const r = scores[i * N + i] - scores[i * N + column] - margins[i * n + c];
      const g = (dloss * 2 * r) / (B * n);
      dscores[i * N + i] += g;
      dscores[i * N + column] -= g;
    }
  return dscores;
}

/** Query i's student scores over [pos, neg_1..n] divided by T, and the teacher's softmax over its scores / T. */
function distributions(scores: Float64Array, teacher: ArrayLike<number>, i: number, B: number, n: number, T: number) {
  const N = (1 + n) * B;
  const student = Array.from({ length: n + 1 }, (_, j) => scores[i * N + ownColumn(i, j, B)] / T);
  const target = Array.from({ length: n + 1 }, (_, j) => teacher[i * (n + 1) + j] / T);
  return { student: logSoftmax(student), target: logSoftmax(target) };
}

/**
 * KL divergence (sentence-transformers' DistillKLDivLoss): T² · 1/B Σ_i KL(softmax(teacher_i / T) || softmax(s_i / T))
 * over query i's [pos, neg_1..n]; teacher scores (B, n + 1).
 */
export function klDistillForward(scores: Float64Array, teacher: ArrayLike<number>, B: number, n: number, T: number): number {
  let total = 0;
  for (let i = 0; i < B; i++) {
    const { student, target } = distributions(scores, teacher, i, B, n, T);
    for (let j = 0; j <= n; j++) {
      const p = Math.exp(target[j]);
      if (p > 0) total += p * (target[j] - student[j]);
    }
  }
  return (total / B) * T * T;
}

/** dscores (B, N) = dloss · T · (softmax(s_i / T) - softmax(teacher_i / T)) / B on query i's own columns, 0 elsewhere. */
export function klDistillBackward(
  scores: Float64Array,
  teacher: ArrayLike<number>,
  B: number,
  n: number,
  T: number,
  dloss = 1,
): Float64Array {
  const N = (1 + n) * B;
  const dscores = new Float64Array(B * N);
  for (let i = 0; i < B; i++) {
    const { student, target } = distributions(scores, teacher, i, B, n, T);
    for (let j = 0; j <= n; j++)
      dscores[i * N + ownColumn(i, j, B)] = (dloss * T * (Math.exp(student[j]) - Math.exp(target[j]))) / B;
  }
  return dscores;
}

function logSoftmax(x: number[]): number[] {
  const max = Math.max(...x);
  const lse = max + Math.log(x.reduce((sum, v) => sum + Math.exp(v - max), 0));
  return x.map((v) => v - lse);
}

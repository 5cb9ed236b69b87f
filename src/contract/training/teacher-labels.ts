// Teacher labels of distillation data (sentence-transformers' `label` column, or `labels`, `score`, `scores`): their
// statistics, gathered while the rows are read, and the check a run makes before training: the label count the loss
// needs (MarginMSE also takes [pos, neg_1..n] scores, turned into margins as sentence-transformers does), and the
// warning for scores squashed into [0, 1] or [-1, 1] (a sigmoid or a normalisation), which silently ruins MarginMSE.
import type { RankingLossKind } from './recipe.ts';

/**
 * The names of a row's one teacher-label column: sentence-transformers' data collator takes any of them (`label`,
 * `labels`, `score`, `scores`) as the loss's labels. A row has at most one.
 */
export const TEACHER_LABEL_COLUMNS = ['label', 'labels', 'score', 'scores'] as const;

/** The column names as a message lists them: "label" (or "labels", "score", "scores"). */
export const TEACHER_LABEL_NAMES = `"label" (or ${TEACHER_LABEL_COLUMNS.slice(1)
  .map((name) => `"${name}"`)
  .join(', ')})`;

/** What the rows' teacher labels hold. */
export interface TeacherLabelSummary {
  /** Rows with labels (a file has them on every row or on none). */
  rows: number;
  /** Labels per row. */
  width: number;
  min: number;
  max: number;
  mean: number;
  /** Standard deviation over every label. */
  std: number;
}

/** What the rows read so far say about their labels (teacherLabelTally() starts one; addTeacherLabel() adds a row). */
export interface TeacherLabelTally {
  rows: number;
  unlabelled: number;
  width: number;
  count: number;
  sum: number;
  squares: number;
  min: number;
  max: number;
}

/** An empty tally, before the first row. */
export function teacherLabelTally(): TeacherLabelTally {
  return { rows: 0, unlabelled: 0, width: 0, count: 0, sum: 0, squares: 0, min: Infinity, max: -Infinity };
}

/** Adds one row's labels (or its lack of them) to `tally`; `where()` names the row for an error. */
export function addTeacherLabel(tally: TeacherLabelTally, label: readonly number[] | undefined, where: () => string): void {
  if (!label) {
    if (tally.rows > 0) throw new Error(`${where()}: no "label", but earlier rows have teacher labels; give every row one`);
    tally.unlabelled++;
    return;
  }
  if (tally.unlabelled > 0) throw new Error(`${where()}: a "label", but earlier rows have none; give every row one or none`);
  if (tally.rows > 0 && label.length !== tally.width)
    throw new Error(`${where()}: ${label.length} teacher labels, but the first row has ${tally.width}; every row needs as many`);
  tally.width = label.length;
  tally.rows++;
  for (const x of label) {
    tally.count++;
    tally.sum += x;
    tally.squares += x * x;
    tally.min = Math.min(tally.min, x);
    tally.max = Math.max(tally.max, x);
  }
}

/** The summary of a tally, or undefined when no row has labels. */
export function teacherLabelSummary(tally: TeacherLabelTally): TeacherLabelSummary | undefined {
  if (tally.rows === 0) return undefined;
  const mean = tally.sum / tally.count;
  const std = Math.sqrt(Math.max(0, tally.squares / tally.count - mean * mean));
  return { rows: tally.rows, width: tally.width, min: tally.min, max: tally.max, mean, std };
}

/** Labels the loss needs per row: one margin per negative (MarginMSE), or the n + 1 scores [pos, neg_1..n] (KL). */
export function labelsPerRow(loss: 'marginmse' | 'kl', negatives: number): number {
  return loss === 'kl' ? negatives + 1 : negatives;
}

/** MarginMSE on rows of n + 1 scores [pos, neg_1..n]: their margins are taken (sentence-transformers' rule). */
export function takesScoreLists(loss: RankingLossKind, negatives: number, width: number): boolean {
  return loss === 'marginmse' && width === negatives + 1;
}

/**
 * The teacher margins of a batch's labels (B, n + 1) of scores [pos, neg_1..n]: (B, n) margins pos - neg_i, as
 * sentence-transformers' MarginMSELoss turns such labels into margins (`labels[:, 0:1] - labels[:, 1:]`).
 */
export function teacherMargins(scores: ArrayLike<number>, B: number, negatives: number): Float32Array {
  const n = negatives;
  if (scores.length !== B * (n + 1))
    throw new RangeError(`teacherMargins: ${scores.length} scores for ${B} rows of ${n + 1} ([pos, neg_1..${n}])`);
  const margins = new Float32Array(B * n);
  for (let b = 0; b < B; b++) for (let c = 0; c < n; c++) margins[b * n + c] = scores[b * (n + 1)] - scores[b * (n + 1) + 1 + c];
  return margins;
}

/**
 * The data's fitness for a loss: an error (no labels, or not as many as the loss needs), a note (MarginMSE on score
 * lists, turned into margins) or a warning (labels that look squashed), all in words a user can act on; nothing for
 * the contrastive loss, which ignores labels.
 */
export function checkTeacherLabels(
  loss: RankingLossKind,
  negatives: number,
  labels: TeacherLabelSummary | undefined,
  dataName: string,
): { error?: string; warning?: string; note?: string } {
  if (loss === 'contrastive') return {};
  const needed = labelsPerRow(loss, negatives);
  const what =
    loss === 'kl'
      ? `${needed} teacher scores per row ([positive, negative_1..${negatives}])`
      : `${needed} teacher margin${needed === 1 ? '' : 's'} per row (score(q, pos) - score(q, neg_i), one per negative) ` +
        `or ${needed + 1} scores [positive, negative_1..${negatives}]`;
  if (!labels) return { error: `--loss ${loss} needs ${what} in a ${TEACHER_LABEL_NAMES} column; ${dataName} has none` };
  const scoreLists = takesScoreLists(loss, negatives, labels.width);
  if (labels.width !== needed && !scoreLists)
    return { error: `--loss ${loss} needs ${what}; the rows of ${dataName} have ${labels.width}` };
  const note = scoreLists
    ? `the rows of ${dataName} hold ${labels.width} teacher scores per row ([positive, negative_1..${negatives}]): ` +
      `turned into ${negatives} margin${negatives === 1 ? '' : 's'} (pos - neg_i), as sentence-transformers does`
    : undefined;
  const noted = note ? { note } : {};
  const inside = (low: number) => labels.min >= low && labels.max <= 1;
  if (inside(0) || inside(-1)) {
    const range = inside(0) ? '[0, 1]' : '[-1, 1]';
    const fix =
      loss === 'marginmse'
        ? "use the cross-encoder's raw logits (no sigmoid, no normalisation) and take score(q, pos) - score(q, neg) of those"
        : "use the cross-encoder's raw logits (no sigmoid), or raise --temperature";
    return {
      ...noted,
      warning:
        `the teacher ${loss === 'kl' || scoreLists ? 'scores' : 'margins'} of ${dataName} all lie in ${range} (min ${labels.min.toPrecision(3)}, ` +
        `max ${labels.max.toPrecision(3)}, spread ${labels.std.toPrecision(3)}): they look squashed by a sigmoid or ` +
        `normalised, which makes the student's margins tiny targets and ruins distillation; ${fix}`,
    };
  }
  return noted;
}

// `splade-lab score` that a kill does not undo: the teacher's scores go, batch by batch, into a progress file beside the
// output (src/io/score-progress-text.ts); a new run with the same teacher, rows, --max-length and --batch takes them
// back and scores only the batches left, in the same batches, so that its output equals an uninterrupted run's.
import type { GpuContext } from '../../gpu/context.ts';
import type { FileSource } from '../../io/file-source.ts';
import { readScoreProgressFile, removeScoreProgressFile, ScoreProgressWriter } from '../../io/score-progress-node.ts';
import {
  formatProgressHeader,
  formatProgressRecord,
  identityDifferences,
  parseScoreProgress,
  type ScoreProgressIdentity,
} from '../../io/score-progress-text.ts';
import type { Triplet } from '../../io/triplets/triplets.ts';
import { sha256Hex } from '../../util/sha256.ts';
import { teacherDigest } from './teacher-digest.ts';
import { labelRule, loadTeacher, pairCount, scoreRows, type TeacherScoreOptions, type TeacherScores } from './teacher-scores.ts';

export { removeScoreProgressFile as removeScoreProgress, scoreProgressPath } from '../../io/score-progress-node.ts';

export interface ResumableScoreOptions extends Pick<TeacherScoreOptions, 'batchSize' | 'maxLength' | 'onProgress'> {
  /** The teacher as the user named it (shown in messages; its files are compared by digest). */
  teacherRef: string;
  /** The rows file as given, and its bytes (their size and SHA-256 go into the progress file's first line). */
  input: { path: string; bytes: Uint8Array };
  /** The progress file (scoreProgressPath), or null for none (an output that is a device). */
  progressPath: string | null;
  /** Delete the progress file first and score from the start. */
  restart: boolean;
  /** Told, before any scoring, how many of the pairs a progress file already held. */
  onResume?: (scored: number, total: number, tornLine: boolean) => void;
  /** Tests: end with an error after this many batches are recorded, as a kill would leave the progress file. */
  stopAfterBatches?: number;
}

export interface ResumableScores extends TeacherScores {
  /** Pairs whose scores came from the progress file. */
  resumed: number;
}

/** The progress file to write to: the one there when it matches `identity`, otherwise a new one; refused otherwise. */
async function openProgress(path: string, identity: ScoreProgressIdentity, restart: boolean) {
  if (restart) await removeScoreProgressFile(path);
  const bytes = await readScoreProgressFile(path);
  const saved = bytes && parseScoreProgress(bytes, path);
  if (!saved)
    return {
      known: new Map<number, number>(),
      torn: false,
      writer: await ScoreProgressWriter.create(path, formatProgressHeader(identity)),
    };
  const differences = identityDifferences(saved.identity, identity);
  if (differences.length > 0)
    throw new Error(
      `${path} holds the scores of another scoring (${differences.join('; ')}): give the --teacher, --in, ` +
        '--max-length and --batch it was made with to resume it, or --restart to delete it and score from the start',
    );
  return { known: saved.scores, torn: saved.torn, writer: await ScoreProgressWriter.continueAt(path, saved.wholeBytes) };
}

/**
 * Scores every pair of `rows` with the teacher in `source` (as scoreRows), keeping each scored batch in the progress
 * file and taking the batches it already holds from there. The file stays when this fails or stops; the caller removes
 * it (removeScoreProgress) once the output is written.
 */
export async function scoreRowsResumable(
  ctx: GpuContext,
  source: FileSource,
  rows: readonly Triplet[],
  options: ResumableScoreOptions,
): Promise<ResumableScores> {
  const loaded = await loadTeacher(source);
  const { batchSize, maxLength, progressPath } = options;
  if (!progressPath) return { ...(await scoreRows(ctx, loaded, rows, options)), resumed: 0 };
  const identity: ScoreProgressIdentity = {
    teacher: { ref: options.teacherRef, sha256: await teacherDigest(loaded) },
    input: { path: options.input.path, bytes: options.input.bytes.length, sha256: await sha256Hex(options.input.bytes) },
    maxLength,
    batch: batchSize,
    labelRule: labelRule(loaded.classifier.numLabels),
    pairs: pairCount(rows),
  };
  const { known, torn, writer } = await openProgress(progressPath, identity, options.restart);
  let batches = 0;
  try {
    if (known.size > 0 || torn) options.onResume?.(known.size, identity.pairs, torn);
    const scores = await scoreRows(ctx, loaded, rows, {
      batchSize,
      maxLength,
      onProgress: options.onProgress,
      known,
      onBatch: async (pairs, batchScores) => {
        await writer.append(formatProgressRecord(pairs, batchScores));
        if (++batches === options.stopAfterBatches)
          throw new Error(`stopped after ${batches} batches, as asked (the progress file ${progressPath} is kept)`);
      },
    });
    return { ...scores, resumed: known.size };
  } finally {
    await writer.close();
  }
}

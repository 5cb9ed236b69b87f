// `splade-lab score --teacher <dir-or-hub-id> --in <rows> --out <rows>`: argument adapter over scoreRowsResumable: a
// cross-encoder teacher scores every (query, passage) pair of train's rows, written back with the raw logits as labels;
// a stopped run's progress file beside --out is taken up by the next.
import { modelRefFromArgument, nodePlatform } from '../../app/platform/platform-node.ts';
import { formatScoredRows, readRowsToScore, scoredFileKind } from '../../app/training/rows-to-score.ts';
import { removeScoreProgress, scoreProgressPath, scoreRowsResumable } from '../../app/training/resumable-score-node.ts';
import { printable } from '../../util/printable.ts';
import { UsageError, type Command } from '../command.ts';
import { readInputFile } from '../input-file.ts';
import { checkOutputPath, inputsOf, writeOutputFile } from '../output-file.ts';

/** Tests stop a run after this many batches, as a kill would (the progress file kept, no --out written). */
const STOP_AFTER_BATCHES = 'SPLADE_LAB_TEST_SCORE_STOP_AFTER_BATCHES';

function stopAfterBatches(): number | undefined {
  const value = process.env[STOP_AFTER_BATCHES];
  return value ? Number(value) : undefined;
}

/** Most pairs per batch and tokens per pair this command accepts. */
const LIMITS = { batch: 4096, maxLength: 8192 };

export const scoreCommand: Command = {
  spec: {
    name: 'score',
    summary: "score train's rows with a cross-encoder teacher: raw logits as the labels train --loss marginmse|kl reads",
    options: {
      teacher: {
        value: 'dir-or-hub-id',
        help: 'a BertForSequenceClassification or ModernBertForSequenceClassification cross-encoder (config.json, safetensors, tokenizer)',
        required: true,
      },
      in: { value: 'file.tsv|file.jsonl', help: 'rows of query, positive and negative(s), without labels', required: true },
      out: {
        value: 'file.tsv|file.jsonl',
        help: 'the rows with label_1..label_{n+1} = the scores of [positive, negative_1..n] (written beside and renamed)',
        required: true,
      },
      batch: { value: 'B', help: 'pairs per GPU batch (pairs are grouped by length)', default: '32' },
      'max-length': { value: 'T', help: 'tokens per pair; longer pairs are truncated longest-first', default: '512' },
      restart: { help: 'delete the progress file of an earlier run (<out>.score-progress.jsonl) and score from the start' },
      json: { help: 'print the report as one JSON object' },
    },
    notes: [
      'Scores are raw logits, never squashed: one label, its logit; two labels, logit 1 - logit 0 (the log-odds of',
      "label 1). A sentence-transformers activation saved with the teacher is reported, not applied. Every row's label",
      'holds n + 1 scores, [positive, negative_1..n]: train --loss kl reads them as they are, marginmse as margins.',
      'Scored batches are kept in <out>.score-progress.jsonl until --out is written: run the same command again after',
      'a kill and it scores only the batches left (same --teacher, --in, --max-length and --batch; others are refused).',
    ].join('\n'),
  },
  async run(args) {
    const teacher = args.required('teacher');
    const input = args.required('in');
    const out = args.required('out');
    const kind = scoredFileKind(out);
    if (!kind) throw new UsageError(`--out ${out}: name a .tsv or .jsonl file (the formats train reads)`);
    const batchSize = args.numberOrDefault('batch');
    const maxLength = args.numberOrDefault('max-length');
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > LIMITS.batch)
      throw new UsageError(`--batch must be an integer in 1..${LIMITS.batch}, got ${batchSize}`);
    if (!Number.isInteger(maxLength) || maxLength < 3 || maxLength > LIMITS.maxLength)
      throw new UsageError(`--max-length must be an integer in 3..${LIMITS.maxLength}, got ${maxLength}`);
    await checkOutputPath(out, '--out', inputsOf(args, 'teacher', 'in'));
    const inputBytes = await readInputFile('in', input);
    const rows = readRowsToScore(inputBytes, input);
    const source = await nodePlatform.files(await modelRefFromArgument(teacher));
    const json = args.flag('json');
    const progressPath = await scoreProgressPath(out);
    const ctx = await nodePlatform.acquireGpu('score');
    const start = performance.now();
    let result;
    try {
      result = await scoreRowsResumable(ctx, source, rows, {
        batchSize,
        maxLength,
        onProgress: json ? undefined : (done, total) => process.stderr.write(`\rscored ${done}/${total} pairs   `),
        teacherRef: teacher,
        input: { path: input, bytes: inputBytes },
        progressPath,
        restart: args.flag('restart'),
        onResume: (scored, total, torn) => {
          const dropped = torn ? '; its last line, cut short, was dropped' : '';
          process.stderr.write(
            `${printable(`resumed: ${scored} of ${total} pairs already scored (${progressPath})${dropped}`)}\n`,
          );
        },
        stopAfterBatches: stopAfterBatches(),
      });
    } finally {
      ctx.destroy();
    }
    const seconds = (performance.now() - start) / 1000;
    if (!json) process.stderr.write('\n');
    await writeOutputFile(out, formatScoredRows(rows, result.scores, kind), '--out');
    if (progressPath) await removeScoreProgress(progressPath);
    const { teacher: facts } = result;
    for (const note of facts.notes) process.stderr.write(`note: ${printable(note)}\n`);
    if (json) {
      process.stdout.write(
        JSON.stringify({
          out,
          rows: rows.length,
          pairs: result.pairs,
          resumed: result.resumed,
          truncated: result.truncated,
          seconds,
          teacher: facts,
        }) + '\n',
      );
      return 0;
    }
    const lines = [
      `teacher: ${facts.architecture}, ${facts.numLabels} label${facts.numLabels === 1 ? '' : 's'} (${facts.labels.join(', ')})`,
      `activation: ${facts.activation}`,
      `scored ${result.pairs} pairs of ${rows.length} rows in ${seconds.toFixed(1)} s` +
        (result.resumed ? ` (${result.resumed} of them taken from the progress file)` : '') +
        (result.truncated ? `; ${result.truncated} pairs truncated to ${maxLength} tokens` : ''),
      ...(facts.unusedTensors.length ? [`unused checkpoint tensors: ${facts.unusedTensors.slice(0, 10).join(', ')}`] : []),
      `written to ${out}`,
    ];
    process.stdout.write(lines.map((line) => printable(line)).join('\n') + '\n');
    return 0;
  },
};

// The table of CLI commands; each command lives in its own module under src/cli/.
import { auditCommand } from './model/audit.ts';
import { bm25Command } from './evaluation/bm25.ts';
import { calibrateCommand } from './experiments/calibrate.ts';
import type { Command } from './command.ts';
import { encodeCommand } from './evaluation/encode.ts';
import { evalCommand } from './evaluation/eval.ts';
import { exportOnnxCommand } from './model/export-onnx.ts';
import { exportOpenSearchCommand } from './model/export-opensearch.ts';
import { handoffCommand } from './handoff/handoff.ts';
import { idfCommand } from './model/idf.ts';
import { indexStatsCommand } from './evaluation/index-stats.ts';
import { inspectCommand } from './model/inspect.ts';
import { kDemoCommand } from './training/k-demo.ts';
import { lambdasCommand } from './experiments/lambdas.ts';
import { lessonCommand } from './lesson/lesson.ts';
import { metricsCommand } from './evaluation/metrics.ts';
import { mineCommand } from './training/mine.ts';
import { mlmCommand } from './training/mlm.ts';
import { publishCommand } from './evaluation/publish.ts';
import { runsCommand } from './experiments/runs.ts';
import { scoreCommand } from './training/score.ts';
import { sweepCommand } from './experiments/sweep.ts';
import { tokenizeCommand } from './model/tokenize.ts';
import { trainCommand } from './training/train.ts';

export const commands: Record<string, Command> = {
  audit: auditCommand,
  bm25: bm25Command,
  calibrate: calibrateCommand,
  encode: encodeCommand,
  eval: evalCommand,
  'export-onnx': exportOnnxCommand,
  'export-opensearch': exportOpenSearchCommand,
  handoff: handoffCommand,
  idf: idfCommand,
  'index-stats': indexStatsCommand,
  inspect: inspectCommand,
  'k-demo': kDemoCommand,
  lambdas: lambdasCommand,
  lesson: lessonCommand,
  metrics: metricsCommand,
  mine: mineCommand,
  mlm: mlmCommand,
  publish: publishCommand,
  runs: runsCommand,
  score: scoreCommand,
  sweep: sweepCommand,
  tokenize: tokenizeCommand,
  train: trainCommand,
};

// The table of CLI commands; each command lives in its own module under src/cli/.
import { bm25Command } from './bm25.ts';
import { calibrateCommand } from './calibrate.ts';
import type { Command } from './command.ts';
import { encodeCommand } from './encode.ts';
import { evalCommand } from './eval.ts';
import { handoffCommand } from './handoff.ts';
import { inspectCommand } from './inspect.ts';
import { kDemoCommand } from './k-demo.ts';
import { lambdasCommand } from './lambdas.ts';
import { lessonCommand } from './lesson.ts';
import { metricsCommand } from './metrics.ts';
import { runsCommand } from './runs.ts';
import { sweepCommand } from './sweep.ts';
import { tokenizeCommand } from './tokenize.ts';
import { trainCommand } from './train.ts';

export const commands: Record<string, Command> = {
  bm25: bm25Command,
  calibrate: calibrateCommand,
  encode: encodeCommand,
  eval: evalCommand,
  handoff: handoffCommand,
  inspect: inspectCommand,
  'k-demo': kDemoCommand,
  lambdas: lambdasCommand,
  lesson: lessonCommand,
  metrics: metricsCommand,
  runs: runsCommand,
  sweep: sweepCommand,
  tokenize: tokenizeCommand,
  train: trainCommand,
};

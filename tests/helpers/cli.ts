// Runs the splade-lab CLI in-process and captures what it writes to stdout and stderr.
import { runCliCaptured } from './cli-capture.ts';

export function runCli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliCaptured(argv);
}

/** The files a training command (train, sweep, handoff, calibrate) reads and writes. */
export interface TrainingPaths {
  model: string;
  triplets: string;
  out: string;
}

/** `splade-lab <command> --model <model> --triplets <triplets> --out <out> <extra...>`, captured as runCli does. */
export function runTrainingCli(command: string, { model, triplets, out }: TrainingPaths, ...extra: string[]) {
  return runCli(command, '--model', model, '--triplets', triplets, '--out', out, ...extra);
}

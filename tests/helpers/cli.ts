// Runs the splade-lab CLI in-process and captures what it writes to stdout and stderr.
import { runCliCaptured } from './cli-capture.ts';

export function runCli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliCaptured(argv);
}

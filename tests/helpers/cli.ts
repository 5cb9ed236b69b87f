// Runs the splade-lab CLI in-process and captures what it writes to stdout and stderr.
import { runCliCaptured } from './cli-capture.ts';

export function runCli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliCaptured(argv);
}

/**
 * `splade-lab <command> --<name> <value>... <extra...>`: the named options in the object's order, then the rest as
 * given (`{ model, triplets, out }` is `--model <model> --triplets <triplets> --out <out>`), captured as runCli does.
 */
export function runCliWith(command: string, options: Record<string, string>, ...extra: string[]) {
  return runCli(command, ...Object.entries(options).flatMap(([name, value]) => [`--${name}`, value]), ...extra);
}

// The CLI's side of the one output rule (src/io/output-file-node.ts): which of a command's options are its inputs, so
// that no output is written over one, and the check and the write every command uses for its output files.
import type { Args } from './command.ts';
import { checkOutputPath, writeOutputFile, type CommandInput } from '../app/platform/platform-node.ts';

export { checkOutputPath, writeOutputFile, type CommandInput };

/** The paths given to `options` (without their "--"), as the inputs an output must not be written over. */
export function inputsOf(args: Args, ...options: string[]): CommandInput[] {
  return options.flatMap((option) => {
    const path = args.has(option) ? args.string(option) : undefined;
    return path === undefined ? [] : [{ option: `--${option}`, path }];
  });
}

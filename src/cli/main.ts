// splade-lab command line: dispatches `splade-lab <command> [options]` to one module per command; --help prints the
// usage generated from the command's option table. What it writes passes the terminal guard; error messages, which
// quote files, are printed with every control character but their line ends escaped, and each of their lines after the
// first indented, so that no text in a message can stand as a "splade-lab <command>: ..." line of its own.
import { printable } from '../util/printable.ts';
import { UsageError, formatUsage, parseCommandArgs } from './command.ts';
import { commands } from './commands.ts';
import { guardTerminalOutput } from './terminal-guard.ts';

function listCommands(): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  const list = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.spec.summary}`);
  return `usage: splade-lab <command> [options]   (splade-lab <command> --help for its options)\n\n${list.join('\n')}\n`;
}

export async function main(argv: string[]): Promise<number> {
  const unguard = guardTerminalOutput();
  try {
    return await dispatch(argv);
  } finally {
    unguard();
  }
}

/**
 * An error message as printed: control characters escaped but its line ends, and every line after the first indented
 * by two spaces (a message's own lists already are), so that only the first starts at the margin.
 */
export function messageLines(message: string): string {
  return printable(message, '\n').replace(/\n(?! {2})/g, '\n  ');
}

async function dispatch(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(listCommands());
    return 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`unknown command "${name}"\n\n${listCommands()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${formatUsage(command.spec)}\n`);
    return 0;
  }
  try {
    return await command.run(parseCommandArgs(command.spec, rest));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const hint = error instanceof UsageError ? `\n(splade-lab ${name} --help shows the options)` : '';
    process.stderr.write(`splade-lab ${name}: ${messageLines(message)}${hint}\n`);
    if (process.env.SPLADE_LAB_DEBUG) console.error(error);
    return 1;
  }
}

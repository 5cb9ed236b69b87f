// The shape of one CLI command, and a small strict option parser shared by all commands.

export interface Command {
  summary: string;
  /** Full usage text, printed for `splade-lab <command> --help` (the summary stands in when absent). */
  usage?: string;
  run(argv: string[]): Promise<number>;
}

export interface ParsedArgs {
  positional: string[];
  options: Map<string, string | true>;
}

/**
 * Parses `--name value`, `--name=value` and bare `--flag` (names listed in `flags`).
 * Unknown options are an error, so a typo never silently does nothing.
 */
export function parseArgs(argv: string[], valued: readonly string[], flags: readonly string[] = []): ParsedArgs {
  const positional: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (flags.includes(name)) {
      options.set(name, true);
    } else if (valued.includes(name)) {
      const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new Error(`option --${name} needs a value`);
      options.set(name, value);
    } else {
      throw new Error(`unknown option --${name} (known: ${[...valued, ...flags].map((n) => '--' + n).join(' ')})`);
    }
  }
  return { positional, options };
}

export function numberOption(args: ParsedArgs, name: string, fallback: number): number {
  const raw = args.options.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw === true || !Number.isFinite(value)) throw new Error(`--${name} needs a number, got "${String(raw)}"`);
  return value;
}

export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const raw = args.options.get(name);
  if (raw === true) throw new Error(`--${name} needs a value`);
  return raw;
}

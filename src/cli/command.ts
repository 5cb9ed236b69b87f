// The shape of a CLI command: one option table per command, parsed by node:util's parseArgs (strict: an unknown
// option is an error) and printed as its --help, so that the usage can never drift from what is accepted.
import { parseArgs } from 'node:util';

export interface OptionSpec {
  /** Placeholder of the value in the usage ("N", "dir"); absent for a flag. */
  value?: string;
  help: string;
  /** Used when the option is absent, and shown in the usage. */
  default?: string;
  required?: boolean;
  /** The option may be given several times (read with `Args.all`). */
  multiple?: boolean;
  /** Another spelling that is accepted too (`range-min` for `range_min`); the usage shows both. */
  alias?: string;
}

export interface PositionalSpec {
  name: string;
  help: string;
  optional?: boolean;
  /** The last positional may take one or more values. */
  variadic?: boolean;
}

export interface CommandSpec {
  name: string;
  /** One line for `splade-lab --help`. */
  summary: string;
  positionals?: PositionalSpec[];
  options: Record<string, OptionSpec>;
  /** Paragraphs printed after the option list. */
  notes?: string;
}

export interface Command {
  spec: CommandSpec;
  run(args: Args): Promise<number>;
}

/** A usage error: printed with the command's usage line. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The parsed arguments of one command, read through its option table (defaults applied, numbers checked). */
export class Args {
  constructor(
    private readonly spec: CommandSpec,
    private readonly values: Record<string, string | string[] | boolean | undefined>,
    readonly positionals: string[],
  ) {}

  /** Whether the option was given on the command line. */
  has(name: string): boolean {
    this.known(name);
    return this.values[name] !== undefined;
  }

  flag(name: string): boolean {
    this.known(name);
    return this.values[name] === true;
  }

  /** Every value of an option given several times, in order (none: an empty list). */
  all(name: string): string[] {
    if (!this.known(name).multiple) throw new Error(`option --${name} of ${this.spec.name} is not repeatable`);
    const value = this.values[name];
    return Array.isArray(value) ? value : [];
  }

  /** The option's value, its default, or undefined. */
  string(name: string): string | undefined {
    const option = this.known(name);
    const value = this.values[name];
    return typeof value === 'string' ? value : option.default;
  }

  /** The option's value or default; a UsageError when neither exists. */
  required(name: string): string {
    const value = this.string(name);
    if (value === undefined) throw new UsageError(`--${name} <${this.spec.options[name].value ?? 'value'}> is required`);
    return value;
  }

  /** The option as a number (its default when absent); a UsageError when it is not a number. */
  number(name: string): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    const value = raw.trim() === '' ? NaN : Number(raw);
    if (!Number.isFinite(value)) throw new UsageError(`--${name} needs a number, got "${raw}"`);
    return value;
  }

  /** The option as a number, or its default: for options whose table gives one (the default is written there only). */
  numberOrDefault(name: string): number {
    if (this.known(name).default === undefined)
      throw new Error(`option --${name} of ${this.spec.name} has no default in its table`);
    return this.number(name)!;
  }

  /** The option as a number, or `fallback` (one computed or taken from another option) for options with no default in their table. */
  numberOr(name: string, fallback: number): number {
    if (this.known(name).default !== undefined) {
      throw new Error(
        `option --${name} of ${this.spec.name} has a default in its table: read it with numberOrDefault, so it is written once`,
      );
    }
    return this.number(name) ?? fallback;
  }

  positional(index: number): string | undefined {
    return this.positionals[index];
  }

  private known(name: string): OptionSpec {
    const option = this.spec.options[name];
    if (!option) throw new Error(`command ${this.spec.name} has no option --${name}`);
    return option;
  }
}

/** "usage: splade-lab <name> ..." followed by one line per positional and option, from the table. */
export function formatUsage(spec: CommandSpec): string {
  const words = [`splade-lab ${spec.name}`];
  for (const p of spec.positionals ?? [])
    words.push(`${p.optional ? '[' : ''}<${p.name}>${p.variadic ? '...' : ''}${p.optional ? ']' : ''}`);
  const spelled = (name: string, o: OptionSpec) => (o.alias ? `--${name}|--${o.alias}` : `--${name}`);
  for (const [name, option] of Object.entries(spec.options)) {
    const word = option.value ? `${spelled(name, option)} <${option.value}>` : spelled(name, option);
    words.push(option.required ? word : `[${word}]${option.multiple ? '...' : ''}`);
  }
  const rows: [string, string][] = [
    ...(spec.positionals ?? []).map((p): [string, string] => [`<${p.name}>`, p.help]),
    ...Object.entries(spec.options).map(([name, o]): [string, string] => [
      o.value ? `${spelled(name, o)} <${o.value}>` : spelled(name, o),
      `${o.help}${o.default !== undefined ? ` (default ${o.default})` : ''}`,
    ]),
  ];
  const width = Math.max(...rows.map(([left]) => left.length));
  return [
    `usage: ${words.join(' ')}`,
    '',
    spec.summary,
    '',
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`),
    ...(spec.notes ? ['', spec.notes] : []),
  ].join('\n');
}

/** Parses argv against the command's table: unknown options, missing values and extra positionals are UsageErrors. */
export function parseCommandArgs(spec: CommandSpec, argv: string[]): Args {
  const options = Object.fromEntries(
    Object.entries(spec.options).flatMap(([name, o]) =>
      [name, ...(o.alias ? [o.alias] : [])].map((spelling) => [
        spelling,
        { type: o.value ? ('string' as const) : ('boolean' as const), multiple: o.multiple ?? false },
      ]),
    ),
  );
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const positionals = spec.positionals ?? [];
  const variadic = positionals.at(-1)?.variadic ?? false;
  if (!variadic && parsed.positionals.length > positionals.length)
    throw new UsageError(`unexpected argument "${parsed.positionals[positionals.length]}"`);
  const missing = positionals.find((p, i) => !p.optional && parsed.positionals[i] === undefined);
  if (missing) throw new UsageError(`<${missing.name}> is required`);
  const values = parsed.values as Record<string, string | string[] | boolean | undefined>;
  for (const [name, option] of Object.entries(spec.options)) {
    if (!option.alias || values[option.alias] === undefined) continue;
    if (values[name] !== undefined) throw new UsageError(`give --${name} or --${option.alias}, not both: they are one option`);
    values[name] = values[option.alias];
    delete values[option.alias];
  }
  const args = new Args(spec, values, parsed.positionals);
  for (const [name, option] of Object.entries(spec.options)) if (option.required) args.required(name);
  return args;
}

/** Writes a line of text to stdout (progress and messages go to stderr). */
export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

// Each CLI default is written once, in the command's option table: numberOr refuses an option that has a table
// default (its fallback would be a second copy), numberOrDefault one that has none, and no command file calls either
// against its own table; the paper's lambdas are written once, in src/contract/training/recipe.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCommandArgs, type Command, type CommandSpec } from '../../../src/cli/command.ts';

const spec: CommandSpec = {
  name: 'demo',
  summary: 'a command for this test',
  options: { steps: { value: 'N', help: 'steps', default: '100' }, top: { value: 'N', help: 'terms shown' } },
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('option defaults', () => {
  it('reads a table default through numberOrDefault, and refuses the other reading of each kind of option', () => {
    const given = parseCommandArgs(spec, ['--steps', '7', '--top', '3']);
    const absent = parseCommandArgs(spec, []);
    expect(given.numberOrDefault('steps')).toBe(7);
    expect(absent.numberOrDefault('steps')).toBe(100);
    expect(given.numberOr('top', 30)).toBe(3);
    expect(absent.numberOr('top', 30)).toBe(30);
    expect(() => absent.numberOr('steps', 100)).toThrow('option --steps of demo has a default in its table');
    expect(() => absent.numberOrDefault('top')).toThrow('option --top of demo has no default in its table');
  });

  it("no command file reads an option against its own table's default (checked in the sources of src/cli)", async () => {
    const wrong: string[] = [];
    const root = join(process.cwd(), 'src', 'cli');
    for (const file of files(root)) {
      const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      const specs = Object.values(module)
        .filter((value): value is Command => typeof value === 'object' && value !== null && 'spec' in value && 'run' in value)
        .map((command) => command.spec);
      if (specs.length === 0) continue;
      const source = readFileSync(file, 'utf8');
      for (const [, name] of source.matchAll(/numberOr\('([\w-]+)'/g))
        if (specs.some((s) => s.options[name]?.default !== undefined))
          wrong.push(`${file}: numberOr('${name}') has a table default`);
      for (const [, name] of source.matchAll(/numberOrDefault\('([\w-]+)'\)/g))
        if (!specs.some((s) => s.options[name]?.default !== undefined))
          wrong.push(`${file}: numberOrDefault('${name}') has none`);
    }
    expect(wrong).toEqual([]);
  });

  it("writes the paper's lambdas as values only in src/contract/training/recipe.ts (prose and help texts may quote them)", () => {
    const written =
      /(lambdaQueries|lambdaDocuments|queries|documents)\s*:\s*(5e-2|0\.05|3e-3|0\.003)\b|\?\?\s*(5e-2|3e-3)\b|default:\s*'(5e-2|3e-3)'/;
    const places = files(join(process.cwd(), 'src'))
      .filter((file) => !file.endsWith(join('contract', 'training', 'recipe.ts')))
      .filter((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .some((line) => written.test(line)),
      );
    expect(places).toEqual([]);
  });
});

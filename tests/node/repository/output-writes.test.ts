// Every file a command writes goes through the one output rule (src/io/output-file-node.ts: checked against the
// command's inputs, written beside and renamed, a device written in place): no other source file imports a way to
// write a file from node:fs, but the few listed here, each for the reason given.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Files that write by other means, and why. */
const ALLOWED = new Map<string, string>([
  ['src/io/durable-write-node.ts', 'the beside-and-rename writer the rule uses'],
  ['src/io/output-file-node.ts', 'the rule itself (a device written in place)'],
  ['src/io/file-source-node.ts', "the Hub download cache: a temporary file renamed over its entry; a model folder's sink"],
  ['src/train/splade/batch-cache-node.ts', 'the batch cache: a temporary file renamed over its entry'],
  ['src/train/mlm/mlm-sequence-cache-node.ts', 'the sequence cache: a temporary file renamed over its entry'],
  ['src/cli/training/step-log.ts', '--log appends one line per report (and cuts back by the rule on --resume)'],
  ['src/io/score-progress-node.ts', "score's progress file beside --out: a line per batch appended, a torn last line cut off"],
]);

const WRITERS = /\b(writeFile|writeFileSync|appendFile|appendFileSync|createWriteStream|truncate|truncateSync)\b/;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The names a file imports from node:fs or node:fs/promises. */
export function fsImports(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'node:fs(?:\/promises)?'/g))
    names.push(...match[1].split(',').map((name) => name.trim().split(/\s+as\s+/)[0]));
  return names.filter(Boolean);
}

describe('the one output rule', () => {
  it('no source file but the listed ones imports a file writer from node:fs', () => {
    const offenders = sources('src').filter(
      (path) => !ALLOWED.has(path) && fsImports(readFileSync(join(ROOT, path), 'utf8')).some((name) => WRITERS.test(name)),
    );
    expect(offenders).toEqual([]);
  });

  it('the check sees a writer imported under another name, and passes over other imports', () => {
    expect(fsImports("import { writeFile as put, stat } from 'node:fs/promises';")).toEqual(['writeFile', 'stat']);
    expect(fsImports("import { constants } from 'node:fs';").some((name) => WRITERS.test(name))).toBe(false);
  });
});

// A clone with nothing beside it passes its own tests: no file under tests/ or scripts/ refers to ../shared (the
// real-data tier aside: tests/data reads the folder it is given, scripts/test-data.mjs defaults to ../shared/data).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ALLOWED = new Set(['tests/data', 'scripts/test-data.mjs']);
const SHARED = /\.\.\/shared\b|shared\/data\b/;

/** Text files under `dir` (relative to the root), the allowed paths left out. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = `${dir}/${name}`;
    if (ALLOWED.has(path)) continue;
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...filesUnder(path));
    else if (/\.(ts|mts|mjs|js|json|md|sh|tsv|txt|py)$/.test(name)) out.push(path);
  }
  return out;
}

/** The files that name ../shared or shared/data, with the first such line. */
export function referencesToShared(files: string[], read: (path: string) => string): string[] {
  return files.flatMap((path) => {
    const line = read(path).split('\n').findIndex((text) => SHARED.test(text));
    return line === -1 ? [] : [`${path}:${line + 1}`];
  });
}

describe('the repository stands alone', () => {
  it('no file under tests/ or scripts/ refers to ../shared', () => {
    const files = [...filesUnder('tests'), ...filesUnder('scripts')];
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain('tests/node/stands-alone.test.ts');
    expect(referencesToShared(files, (path) => readFileSync(join(ROOT, path), 'utf8')).filter((hit) => !hit.startsWith('tests/node/stands-alone.test.ts'))).toEqual([]);
  });

  it('finds a reference, in code or in a comment', () => {
    const texts: Record<string, string> = { 'a.ts': "const p = '../../../shared/data/x';", 'b.md': 'see shared/data/README.md', 'c.ts': 'const shared = 1;' };
    expect(referencesToShared(Object.keys(texts), (path) => texts[path])).toEqual(['a.ts:1', 'b.md:1']);
    expect(relative(ROOT, join(ROOT, 'tests'))).toBe('tests');
  });
});

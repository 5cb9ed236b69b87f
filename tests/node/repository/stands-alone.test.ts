// A clone with nothing beside it passes its own tests: no file under tests/ or scripts/ refers to the shared folder
// beside the repository (the real-data tier aside: tests/data reads the folder it is given, scripts/test-data.mjs has
// it as its default). The pattern is spelled from parts, so this file is checked like every other.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

const ALLOWED = new Set(['tests/data', 'scripts/test-data.mjs']);

const FOLDER = 'shared';

const SHARED = new RegExp(`\\.\\./${FOLDER}\\b|${FOLDER}/data\\b`);

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

/** The files that name the shared folder (beside the repository, or its data/), with the first such line. */
export function referencesToShared(files: string[], read: (path: string) => string): string[] {
  return files.flatMap((path) => {
    const line = read(path)
      .split('\n')
      .findIndex((text) => SHARED.test(text));
    return line === -1 ? [] : [`${path}:${line + 1}`];
  });
}

describe('the repository stands alone', () => {
  it('no file under tests/ or scripts/ refers to the shared folder', () => {
    const files = [...filesUnder('tests'), ...filesUnder('scripts')];
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain('tests/node/repository/stands-alone.test.ts');
    expect(referencesToShared(files, (path) => readFileSync(join(ROOT, path), 'utf8'))).toEqual([]);
  });

  it('finds a reference, in code or in a comment', () => {
    const texts: Record<string, string> = {
      'a.ts': `const p = '../../../${FOLDER}/data/x';`,
      'b.md': `see ${FOLDER}/data/README.md`,
      'c.ts': `const ${FOLDER} = 1;`,
      'd.sh': `ls ../${FOLDER}`,
    };
    expect(referencesToShared(Object.keys(texts), (path) => texts[path])).toEqual(['a.ts:1', 'b.md:1', 'd.sh:1']);
  });
});

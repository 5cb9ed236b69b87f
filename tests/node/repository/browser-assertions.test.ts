// One assertion API in the browser tests, as in the Node ones: Vitest's `expect` (tests/browser/expect.ts). A file under
// tests/browser that defines or imports another assertion helper (a `check`, a `near`, an `assert...`, chai's or Node's
// assert) fails here, naming the file and line.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

const EXPECT = 'tests/browser/expect.ts';

/** Names an assertion helper goes by; `checkKernel` (it returns failures) and `expected` are not among them. */
const HELPER = /^(check|near|assert(?:[A-Z]\w*)?|expect(?:[A-Z]\w*)?)$/;

/** Assertion libraries, which only expect.ts builds on. */
const LIBRARIES = new Set(['chai', '@vitest/expect', 'vitest', 'assert', 'node:assert', 'node:assert/strict', 'expect']);

/** A function declared by name, or a binding to a function or arrow: its name in group 1 or 2. */
const DEFINITION =
  /\b(?:function\s*\*?\s*(\w+)\s*[<(]|(?:const|let|var)\s+(\w+)\s*(?::[^=]+)?=\s*(?:async\s*)?(?:function\b|\(|\w+\s*=>))/g;

/** An import with bindings: the default name, the braced names and the module. */
const IMPORT = /\bimport\s+(?:type\s+)?([\w$]+\s*,?\s*)?(?:\*\s*as\s+[\w$]+|\{([^}]*)\})?\s*from\s*['"]([^'"]+)['"]/g;

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** `path:line: what` for each assertion helper other than expect.ts's that the file at `path` defines or imports. */
export function otherAssertions(path: string, text: string): string[] {
  if (path === EXPECT) return [];
  const found: string[] = [];
  for (const match of text.matchAll(DEFINITION)) {
    const name = match[1] ?? match[2];
    if (HELPER.test(name)) found.push(`${path}:${lineOf(text, match.index)}: defines ${name}`);
  }
  for (const match of text.matchAll(IMPORT)) {
    const [, defaultName, braced, from] = match;
    const resolved = from.startsWith('.') ? posix.join(dirname(path), from) : from;
    if (resolved === EXPECT) continue;
    const names = [defaultName, ...(braced ?? '').split(',')]
      .map((name) =>
        name
          ?.replace(/,/g, '')
          .trim()
          .split(/\s+as\s+/)[0]
          .replace(/^type\s+/, ''),
      )
      .filter((name): name is string => !!name);
    const helpers = names.filter((name) => HELPER.test(name));
    if (LIBRARIES.has(from)) found.push(`${path}:${lineOf(text, match.index)}: imports ${from}`);
    else if (helpers.length) found.push(`${path}:${lineOf(text, match.index)}: imports ${helpers.join(', ')} from ${from}`);
  }
  return found;
}

describe('the browser tests assert with one API', () => {
  it("no file under tests/browser defines or imports an assertion helper other than expect.ts's `expect`", () => {
    const files = readdirSync(join(ROOT, 'tests/browser'), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `tests/browser/${name}`);
    expect(files.length).toBeGreaterThan(30);
    expect(files).toContain(EXPECT);
    const found = files.flatMap((path) => otherAssertions(path, readFileSync(join(ROOT, path), 'utf8')));
    expect(found, `assert with expect from ${EXPECT} (Vitest's, as in the Node tests) instead`).toEqual([]);
  });

  it('finds a helper defined or imported, and lets expect.ts, checkKernel and a variable named expected be', () => {
    const texts: Record<string, string> = {
      'tests/browser/a.ts': 'export function check(condition: unknown, message: string): asserts condition {}',
      'tests/browser/b.test.ts': "import {\n  allInside,\n  check,\n  mount,\n} from './ui-fixture.ts';",
      'tests/browser/c.test.ts': "import { assert } from 'chai';\nconst near = (a: number, b: number) => a === b;",
      'tests/browser/d.test.ts': "import * as assert from 'node:assert';",
      'tests/browser/e.test.ts': "import { expectClose } from '../helpers/close.ts';",
      'tests/browser/f.test.ts': [
        "import { expect } from './expect.ts';",
        "import { checkKernel } from '../helpers/check-kernel.ts';",
        'const expected = { k: 4 };',
        'const checks = (n: number) => n;',
      ].join('\n'),
      [EXPECT]: "import * as chai from 'chai';\nexport const expect = (value: unknown) => chai.expect(value);",
    };
    expect(Object.entries(texts).flatMap(([path, text]) => otherAssertions(path, text))).toEqual([
      'tests/browser/a.ts:1: defines check',
      'tests/browser/b.test.ts:1: imports check from ./ui-fixture.ts',
      'tests/browser/c.test.ts:2: defines near',
      'tests/browser/c.test.ts:1: imports chai',
      'tests/browser/d.test.ts:1: imports node:assert',
      'tests/browser/e.test.ts:1: imports expectClose from ../helpers/close.ts',
    ]);
  });
});

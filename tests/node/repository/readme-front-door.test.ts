// The README is a front door: short, and every link in it and in docs/ leads somewhere (the file, and the heading an
// anchor names); the old README's sections each have a home in docs/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The relative links of a Markdown text (images included), without http(s) and mailto ones. */
export function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((target) => !/^(https?:|mailto:)/.test(target));
}

describe('the README', () => {
  it('is at most 150 lines and names the two commands', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(150);
    expect(readme).toContain('npm start');
    expect(readme).toContain('npm test');
  });

  it('links every file of docs/', () => {
    const links = relativeLinks(read('README.md'));
    for (const doc of DOCS.filter((path) => path !== 'README.md')) expect(links, doc).toContain(doc);
  });

  it("gives each of the old README's sections a home in docs/", () => {
    const headings = DOCS.filter((path) => path !== 'README.md').flatMap((path) =>
      [...read(path).matchAll(/^#+ (.*)$/gm)].map((m) => m[1]),
    );
    for (const old of [
      'Set-up',
      'The command line',
      'What is inside',
      'Kernel design in one paragraph',
      'Against the peers',
      'Running without a GPU',
    ]) {
      expect(
        headings.some((heading) => heading.startsWith(old)),
        old,
      ).toBe(true);
    }
    expect(
      headings.some((heading) => heading.startsWith('The page')),
      'The page',
    ).toBe(true);
  });
});

describe('links in README.md and docs/', () => {
  it.each(DOCS)('%s: every relative link leads to a file, and its anchor to a heading there', (path) => {
    for (const link of relativeLinks(read(path))) {
      const [file, anchor] = link.split('#');
      const target = file === '' ? path : join(dirname(path), file);
      expect(existsSync(join(ROOT, target)), `${path} links ${link}`).toBe(true);
      if (anchor) {
        const anchors = [...read(target).matchAll(/^#+ (.*)$/gm)].map((m) => anchorOf(m[1]));
        expect(anchors, `${path} links ${link}`).toContain(anchor);
      }
    }
  });

  it('the helpers find links and anchors as GitHub does', () => {
    expect(relativeLinks('[a](docs/a.md) ![p](img/p.png) [w](https://x.org) [b](b.md#the-page-tab-by-tab)')).toEqual([
      'docs/a.md',
      'img/p.png',
      'b.md#the-page-tab-by-tab',
    ]);
    expect(anchorOf('The page, tab by tab')).toBe('the-page-tab-by-tab');
    expect(anchorOf('GPUs: without one, on a real one')).toBe('gpus-without-one-on-a-real-one');
  });
});

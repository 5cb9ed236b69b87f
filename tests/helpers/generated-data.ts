// Training and retrieval data the tests generate instead of reading non-redistributable sets: the lesson's world
// (topics of real English words, src/contract/lesson/lesson-task.ts) written once into the temp folder as a triplets TSV of 100 rows
// (a few of them in other scripts and with MS MARCO's kind of mojibake) and as a BEIR folder.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { lessonTaskFor } from '../../src/contract/lesson/lesson-settings.ts';
import { lessonTaskFiles } from '../../src/contract/lesson/lesson-task-files.ts';

/** Rows of the generated triplets file (the tests count on exactly this many). */
export const GENERATED_TRIPLETS = 100;

/**
 * Rows in place of the last generated ones: text as real files carry it (UTF-8 read as Latin-1 and written again, as
 * in MS MARCO's passages; accents; Japanese; an emoji), so that readers are checked on multi-byte characters too.
 */
export const NON_ASCII_TRIPLETS: readonly [string, string, string][] = [
  ['is a little caffeine ok', 'We don\u00e2\u0080\u0099t know how much caffeine is too much', 'the harbor and the tide'],
  [
    'caf\u00e9 cr\u00e8me br\u00fbl\u00e9e',
    'a na\u00efve cr\u00e8me br\u00fbl\u00e9e from the caf\u00e9',
    'the whale and the coral reef',
  ],
  ['\u6771\u4eac \u99c5', '\u6771\u4eac\u99c5\u306f\u5927\u304d\u3044 a big station', 'a small shell near the wave'],
  ['sun \u2600\ufe0f and sea \u{1F30A}', 'the sea \u{1F30A} under the sun \u2600\ufe0f', 'a book of old paper'],
];

const SEED = 1;

let folder: string | undefined;

/**
 * The folder holding triplets.tsv and beir/, written on first use. It is named by a hash of its contents and written
 * whole (then renamed into place), so every test process and every run share one folder instead of leaving one each.
 */
function generated(): string {
  if (folder) return folder;
  const task = lessonTaskFor(SEED);
  const triplets = [...task.triplets.slice(0, GENERATED_TRIPLETS - NON_ASCII_TRIPLETS.length), ...NON_ASCII_TRIPLETS];
  const files = lessonTaskFiles({ ...task, triplets });
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file.path}\0${file.text}\0`);
  const dir = join(tmpdir(), `splade-lab-generated-${hash.digest('hex').slice(0, 16)}`);
  if (!existsSync(dir)) {
    const staging = mkdtempSync(`${dir}.partial-`);
    for (const file of files) {
      mkdirSync(dirname(join(staging, file.path)), { recursive: true });
      writeFileSync(join(staging, file.path), file.text);
    }
    try {
      renameSync(staging, dir);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process renamed the same contents first
    }
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

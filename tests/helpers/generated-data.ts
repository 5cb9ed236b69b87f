// Training and retrieval data the tests generate instead of reading non-redistributable sets: the lesson's world
// (topics of real English words, src/app/lesson-task.ts) written once per test process as a triplets TSV of 100 rows
// and as a BEIR folder.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { lessonTaskFor } from '../../src/app/lesson-settings.ts';
import { lessonTaskFiles } from '../../src/app/lesson-task-files.ts';

/** Rows of the generated triplets file (the tests count on exactly this many). */
export const GENERATED_TRIPLETS = 100;
const SEED = 1;

let folder: string | undefined;

/** The folder holding triplets.tsv and beir/, written on first use. */
function generated(): string {
  if (folder) return folder;
  const dir = mkdtempSync(join(tmpdir(), 'splade-lab-generated-'));
  const task = lessonTaskFor(SEED);
  for (const file of lessonTaskFiles({ ...task, triplets: task.triplets.slice(0, GENERATED_TRIPLETS) })) {
    mkdirSync(dirname(join(dir, file.path)), { recursive: true });
    writeFileSync(join(dir, file.path), file.text);
  }
  return (folder = dir);
}

/** A TSV of 100 generated (query, positive, negative) triplets named triplets.tsv. */
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

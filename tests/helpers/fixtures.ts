// Files bundled under tests/fixtures (each one's source and licence in tests/fixtures/LICENSES.md) and a reader for
// trec_eval's expected outputs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Absolute path of a file under tests/fixtures. */
export function fixturePath(relative: string): string {
  return fileURLToPath(new URL(`../fixtures/${relative}`, import.meta.url));
}

export function readFixtureText(relative: string): string {
  return readFileSync(fixturePath(relative), 'utf8');
}

export interface TrecEvalRow {
  measure: string;
  queryId: string;
  value: string;
}

/** Rows of a trec_eval output file ("measure \t qid \t value"), values kept as the printed strings. */
export function readTrecEvalOutput(relative: string): TrecEvalRow[] {
  return readFixtureText(relative)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [measure, queryId, value] = line.split('\t');
      return { measure: measure.trim(), queryId, value };
    });
}

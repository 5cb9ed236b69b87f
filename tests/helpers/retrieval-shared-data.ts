// Paths to the read-only shared test data (../shared/data beside the repository) and a reader for trec_eval's outputs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Absolute path of a file under shared/data, resolved relative to this file so it works in any clone. */
export function sharedDataPath(relative: string): string {
  return fileURLToPath(new URL(`../../../shared/data/${relative}`, import.meta.url));
}

export function readSharedText(relative: string): string {
  return readFileSync(sharedDataPath(relative), 'utf8');
}

export interface TrecEvalRow {
  measure: string;
  queryId: string;
  value: string;
}

/** Rows of a trec_eval output file ("measure \t qid \t value"), values kept as the printed strings. */
export function readTrecEvalOutput(relative: string): TrecEvalRow[] {
  return readSharedText(relative)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [measure, queryId, value] = line.split('\t');
      return { measure: measure.trim(), queryId, value };
    });
}

// The rows `splade-lab score` reads (train's TSV or JSONL: query, positive, negatives) and what it writes back: the
// same rows with the teacher's scores as their label columns.
import { parseTriplets, type Triplet } from '../../io/triplets/triplets.ts';
import { parseTripletsJsonl } from '../../io/triplets/triplets-jsonl.ts';

export { formatScoredRows, scoredFileKind, type ScoredFileKind } from '../../io/triplets/scored-rows-text.ts';

/**
 * The rows of a TSV or JSONL file (by its name), as train reads them; a file whose rows already have teacher labels
 * is refused (scoring would replace them: remove them first, or keep the file as it is).
 */
export function readRowsToScore(bytes: Uint8Array, name: string): Triplet[] {
  const lower = name.toLowerCase();
  const jsonl = lower.endsWith('.jsonl') || lower.endsWith('.ndjson');
  if (!jsonl && !lower.endsWith('.tsv'))
    throw new Error(`${name}: name a .tsv or .jsonl file of query, positive and negatives (the rows train reads)`);
  const { triplets } = jsonl ? parseTripletsJsonl(bytes, name) : parseTriplets(bytes, name);
  const labelled = triplets.findIndex((row) => row.label !== undefined);
  if (labelled >= 0)
    throw new Error(
      `${name}: the rows already have teacher labels (row ${labelled + 1}); score writes new ones, so give it rows ` +
        'without a label column',
    );
  return triplets;
}

// The --search option of eval and bm25, read once: an exact top-k algorithm name.
import { isSearchAlgorithm, searchAlgorithms, type SearchAlgorithm } from '../../contract/evaluation/search-results.ts';
import { UsageError, type Args } from '../command.ts';

export function searchAlgorithmOption(args: Args): SearchAlgorithm {
  const search = args.string('search') ?? 'exhaustive';
  if (!isSearchAlgorithm(search)) throw new UsageError(`--search must be one of ${searchAlgorithms.join(', ')}, got "${search}"`);
  return search;
}

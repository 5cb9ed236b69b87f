// Training rows with teacher scores as the text of a file `splade-lab train --loss marginmse|kl` reads: TSV (a header
// naming query, positive, negative(s) and label_1..label_{n+1}) or JSON Lines (train's keys and a `label` list).
import { rowNegatives, type Triplet } from './triplets.ts';

export type ScoredFileKind = 'tsv' | 'jsonl';

/** The file kind of a path by its name (.tsv; .jsonl or .ndjson), or null. */
export function scoredFileKind(path: string): ScoredFileKind | null {
  const lower = path.toLowerCase();
  if (lower.endsWith('.tsv')) return 'tsv';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  return null;
}

/** Rows and their scores [pos, neg_1..n] as the file's text; a TSV refuses a text holding a tab or a line break. */
export function formatScoredRows(rows: readonly Triplet[], scores: readonly number[][], kind: ScoredFileKind): string {
  if (rows.length === 0) return '';
  const lines: string[] = [];
  const negatives = rowNegatives(rows[0]).length;
  const negativeNames = negatives === 1 ? ['negative'] : Array.from({ length: negatives }, (_, i) => `negative_${i + 1}`);
  if (kind === 'tsv') {
    const labels = Array.from({ length: negatives + 1 }, (_, i) => `label_${i + 1}`);
    lines.push(['query', 'positive', ...negativeNames, ...labels].join('\t'));
  }
  rows.forEach((row, i) => {
    const texts = [row.query, row.positive, ...rowNegatives(row)];
    if (kind === 'jsonl') {
      const named = Object.fromEntries(negativeNames.map((name, j) => [name, texts[2 + j]]));
      lines.push(JSON.stringify({ query: row.query, positive: row.positive, ...named, label: scores[i] }));
      return;
    }
    if (texts.some((text) => /[\t\n\r]/.test(text)))
      throw new Error(`row ${i + 1} holds a tab or a line break, which a TSV field cannot: write a .jsonl file instead`);
    lines.push([...texts, ...scores[i].map(String)].join('\t'));
  });
  return lines.join('\n') + '\n';
}

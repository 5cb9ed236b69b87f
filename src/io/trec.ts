// TREC qrels and run files: parsing with line-numbered errors, and writing runs trec_eval reads back unchanged.
import { addToNested, type Qrels, type Run } from '../retrieval/run-types.ts';

/** Splits on runs of spaces/tabs; skips blank lines and '#' comment lines (as trec_eval 10 does). */
function* fields(text: string): Generator<[lineNumber: number, parts: string[]]> {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || line.startsWith('#')) continue;
    yield [i + 1, line.split(/\s+/)];
  }
}

/** `qid iter docno rel` per line; rel must be an integer (negative = pooled but unjudged). */
export function parseQrels(text: string, fileName = 'qrels'): Qrels {
  const qrels: Qrels = new Map();
  for (const [lineNumber, parts] of fields(text)) {
    const where = `${fileName}:${lineNumber}`;
    if (parts.length !== 4) throw new Error(`${where}: expected 4 columns "qid iter docno rel", found ${parts.length}`);
    const rel = Number(parts[3]);
    if (!Number.isInteger(rel)) throw new Error(`${where}: relevance "${parts[3]}" is not an integer`);
    addToNested(qrels, parts[0], parts[2], rel, where);
  }
  if (qrels.size === 0) throw new Error(`${fileName}: no judgments found`);
  return qrels;
}

/** `qid Q0 docno rank score tag` per line; the rank column is ignored (trec_eval ranks by score). */
export function parseRun(text: string, fileName = 'run'): { run: Run; runId: string } {
  const run: Run = new Map();
  let runId = '';
  for (const [lineNumber, parts] of fields(text)) {
    const where = `${fileName}:${lineNumber}`;
    if (parts.length !== 6) throw new Error(`${where}: expected 6 columns "qid Q0 docno rank score tag", found ${parts.length}`);
    const score = Number(parts[4]);
    if (!Number.isFinite(score)) throw new Error(`${where}: score "${parts[4]}" is not a number`);
    addToNested(run, parts[0], parts[2], score, where);
    runId ||= parts[5];
  }
  if (run.size === 0) throw new Error(`${fileName}: no results found`);
  return { run, runId };
}

/**
 * Writes a run with ranks 1..n in score order (ties: document id descending, trec_eval's order) and
 * scores printed so that they parse back to the same doubles.
 */
export function formatRun(run: Run, tag: string): string {
  if (/\s/.test(tag) || tag === '') throw new Error(`run tag must be one word, got "${tag}"`);
  const lines: string[] = [];
  for (const [queryId, scores] of run) {
    const ranked = [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : 0));
    ranked.forEach(([docId, score], i) => lines.push(`${queryId} Q0 ${docId} ${i + 1} ${score} ${tag}`));
  }
  return lines.join('\n') + (lines.length ? '\n' : '');
}

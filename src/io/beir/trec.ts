// TREC qrels and run files: strict UTF-8, line-numbered errors, relevance read as trec_eval reads it (C's atol),
// and writing runs trec_eval reads back unchanged (ids with whitespace are refused: they would forge columns).
import { addToNested, type Qrels, type Run } from '../../contract/evaluation/run-types.ts';
import { clip } from '../format-error.ts';
import { textOf } from '../text-decode.ts';

/** Splits on runs of spaces/tabs; skips blank lines and '#' comment lines (as trec_eval 10 does). */
function* fields(text: string): Generator<[lineNumber: number, parts: string[]]> {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || line.startsWith('#')) continue;
    yield [i + 1, line.split(/\s+/)];
  }
}

const LONG_MAX = 2n ** 63n - 1n;

const LONG_MIN = -(2n ** 63n);

/**
 * C's atol as glibc implements it (strtol, base 10, 64-bit long): leading white space, an optional sign, then decimal
 * digits up to the first other character ("1e1" -> 1, "0x1" -> 0, "3.7" -> 3, "+2" -> 2), clamped to the long range.
 * Returns null where atol finds no digit at all (it would return 0).
 */
export function atol(text: string): number | null {
  const match = /^[\t\n\v\f\r ]*([+-]?)(\d+)/.exec(text);
  if (!match) return null;
  const digits = match[2].replace(/^0+(?=\d)/, '');
  if (digits.length <= 15) return Number(match[1] + digits) || 0; // exact, and no -0
  let value = BigInt(match[1] + digits);
  if (value > LONG_MAX) value = LONG_MAX;
  if (value < LONG_MIN) value = LONG_MIN;
  return Number(value);
}

/**
 * `qid iter docno rel` per line (text, or bytes decoded as strict UTF-8). rel is read as trec_eval reads it, with
 * atol (negative = pooled but unjudged); a rel with no leading digit is refused rather than silently read as 0.
 */
export function parseQrels(content: string | Uint8Array, fileName = 'qrels'): Qrels {
  const qrels: Qrels = new Map();
  for (const [lineNumber, parts] of fields(textOf(content, fileName))) {
    const where = `${fileName}:${lineNumber}`;
    if (parts.length !== 4) throw new Error(`${where}: expected 4 columns "qid iter docno rel", found ${parts.length}`);
    const rel = atol(parts[3]);
    if (rel === null)
      throw new Error(`${where}: relevance "${clip(parts[3], 40)}" is not an integer (trec_eval's atol would read it as 0)`);
    addToNested(qrels, parts[0], parts[2], rel, where);
  }
  if (qrels.size === 0) throw new Error(`${fileName}: no judgments found`);
  return qrels;
}

/** `qid Q0 docno rank score tag` per line; the rank column is ignored (trec_eval ranks by score). */
export function parseRun(content: string | Uint8Array, fileName = 'run'): { run: Run; runId: string } {
  const run: Run = new Map();
  let runId = '';
  for (const [lineNumber, parts] of fields(textOf(content, fileName))) {
    const where = `${fileName}:${lineNumber}`;
    if (parts.length !== 6) throw new Error(`${where}: expected 6 columns "qid Q0 docno rank score tag", found ${parts.length}`);
    const score = Number(parts[4]);
    if (!Number.isFinite(score)) throw new Error(`${where}: score "${clip(parts[4], 40)}" is not a number`);
    addToNested(run, parts[0], parts[2], score, where);
    runId ||= parts[5];
  }
  if (run.size === 0) throw new Error(`${fileName}: no results found`);
  return { run, runId };
}

/**
 * Why `id` cannot be a TREC query or document id (empty, or white space that would split or forge a line), or null.
 * The BEIR readers and formatRun refuse such ids.
 */
export function trecIdProblem(id: string): string | null {
  if (id === '') return 'is empty';
  if (/\s/.test(id)) return 'contains white space, which would split a TREC run or qrels line';
  return null;
}

/**
 * Writes a run with ranks 1..n in score order (ties: document id descending, trec_eval's order) and
 * scores printed so that they parse back to the same doubles. Ids with white space are refused.
 */
export function formatRun(run: Run, tag: string): string {
  if (/\s/.test(tag) || tag === '') throw new Error(`run tag must be one word, got "${clip(tag, 40)}"`);
  const lines: string[] = [];
  for (const [queryId, scores] of run) {
    const queryProblem = trecIdProblem(queryId);
    if (queryProblem) throw new Error(`formatRun: query id "${clip(queryId, 60)}" ${queryProblem}; rename it`);
    const ranked = [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : 0));
    ranked.forEach(([docId, score], i) => {
      const docProblem = trecIdProblem(docId);
      if (docProblem)
        throw new Error(`formatRun: document id "${clip(docId, 60)}" of query "${clip(queryId, 60)}" ${docProblem}; rename it`);
      lines.push(`${queryId} Q0 ${docId} ${i + 1} ${score} ${tag}`);
    });
  }
  return lines.join('\n') + (lines.length ? '\n' : '');
}

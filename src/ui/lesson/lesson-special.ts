// The special pieces of a lesson vector ([CLS], [SEP], [unused…]: the audit's "special" kind), said apart under its top
// terms: they keep their weights in the vector, but a class should not read them as words the text calls for.
import { html, nothing } from 'lit';
import { KIND_NAMES } from '../../worker/api.ts';
import type { SparseTerm } from '../../contract/model/model-results.ts';
import { formatStat } from '../common/format.ts';

/** Special pieces named in the line (the heaviest); the others are counted. */
const NAMED = 3;

/** One line under a term list: the heaviest special pieces with their weights, and how many are active in all. */
export function renderSpecialApart(special: readonly Pick<SparseTerm, 'term' | 'weight'>[], specialDims: number, k?: number) {
  if (specialDims === 0 || special.length === 0) return nothing;
  const named = special.slice(0, NAMED);
  const more = specialDims > named.length ? ` and ${specialDims - named.length} more` : '';
  return html`<p class="muted special-apart" data-k=${k ?? nothing}>
    Apart, not top terms (${KIND_NAMES.special}):
    ${named.map((t, i) => html`${i ? ', ' : ''}<span class="special-term">${t.term}</span> ${formatStat(t.weight)}`)}${more}.
  </p>`;
}

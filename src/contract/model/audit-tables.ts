// The tables of the expansion audit, for `splade-lab audit` and the page's Audit tab: a corpus's (where the weight
// goes, frequent expansions, widespread terms) and a comparison of two encodings' (terms gained, terms lost, each text's
// change).
import { PIECE_KINDS, TERM_ORIGINS, type AuditDiff, type CorpusAudit, type TermChange } from './expansion-audit.ts';
import { fixed, percent, type ReportTable } from '../report-table.ts';

/** How each piece kind reads in a table. */
export const KIND_NAMES: Record<(typeof PIECE_KINDS)[number], string> = {
  special: 'special and [unused]',
  number: 'number',
  stopWord: 'stop word',
  subword: 'subword piece',
  word: 'other word',
};

export function corpusTables(audit: CorpusAudit): ReportTable[] {
  const figures = [
    { name: 'category', format: undefined },
    { name: 'weight share', format: percent },
    { name: 'dims share', format: percent },
    { name: 'weight/doc', format: fixed(2) },
    { name: 'dims/doc', format: fixed(1) },
    { name: 'on expansions', format: percent },
  ];
  const origins = TERM_ORIGINS.map((origin) => {
    const f = audit.origins[origin];
    return [`${origin} terms`, f.weightShare, f.dimsShare, f.meanWeight, f.meanDims, origin === 'expansion' ? 1 : 0];
  });
  const kinds = PIECE_KINDS.map((kind) => {
    const f = audit.kinds[kind];
    return [KIND_NAMES[kind], f.weightShare, f.dimsShare, f.meanWeight, f.meanDims, f.expansionShare];
  });
  return [
    {
      title: 'where the weight goes (the first two rows and the last five each add up to 100%)',
      columns: figures,
      rows: [...origins, ...kinds],
    },
    {
      title: 'most frequent expansions (expansion in the most documents)',
      columns: [{ name: 'expansion' }, { name: 'documents' }, { name: 'mean weight', format: fixed(3) }],
      rows: audit.frequentExpansions.map((e) => [e.term, e.documents, e.meanWeight]),
    },
    {
      title: 'terms active in the most documents (stop-list candidates)',
      columns: [
        { name: 'term' },
        { name: 'documents' },
        { name: 'share', format: percent },
        { name: 'mean weight', format: fixed(3) },
        { name: 'as expansion' },
      ],
      rows: audit.widespreadTerms.map((t) => [t.term, t.documents, t.share, t.meanWeight, t.asExpansion]),
    },
  ];
}

function termChangeTable(name: 'gained' | 'lost', title: string, changes: readonly TermChange[]): ReportTable {
  return {
    title,
    columns: [{ name }, { name: 'texts' }, { name: 'weight mass', format: fixed(3) }, { name: 'mean weight', format: fixed(3) }],
    rows: changes.map((c) => [c.term, c.texts, c.mass, c.meanWeight]),
  };
}

/** `sides` names the two encodings ("m at k = 1"); `perTextRows` caps the per-text table (0: every text). */
export function diffTables(diff: AuditDiff, sides: { model: string; against: string }, perTextRows: number): ReportTable[] {
  const signed = (digits: number) => (value: number) => (value > 0 ? '+' : '') + value.toFixed(digits);
  const shown = perTextRows > 0 ? diff.perText.slice(0, perTextRows) : diff.perText;
  return [
    termChangeTable(
      'gained',
      `terms gained: active with ${sides.against}, not with ${sides.model} (${diff.gainedTerms} in all)`,
      diff.gained,
    ),
    termChangeTable(
      'lost',
      `terms lost: active with ${sides.model}, not with ${sides.against} (${diff.lostTerms} in all)`,
      diff.lost,
    ),
    {
      title: `per text (FLOPS: the sum of squared weights${shown.length < diff.perText.length ? `; the first ${shown.length} of ${diff.perText.length} texts` : ''})`,
      columns: [
        { name: 'text', maxWidth: 48 },
        { name: 'dims' },
        { name: 'against dims' },
        { name: 'dims change', format: signed(0) },
        { name: 'flops', format: fixed(2) },
        { name: 'against flops', format: fixed(2) },
        { name: 'flops change', format: signed(2) },
      ],
      rows: shown.map((t) => [t.label, t.activeDims, t.againstActiveDims, t.dimsChange, t.flops, t.againstFlops, t.flopsChange]),
    },
  ];
}

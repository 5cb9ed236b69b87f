// The corpus audit: where the weight of a corpus's SPLADE vectors goes (the documents' own tokens or expansions, and
// by piece kind: special, number, stop word, subword, word), its most frequent expansions and most widespread terms.
import type { EncodeRequest } from '../../contract/model/model-requests.ts';
import { STOP_WORDS_SOURCE } from './english-stop-words.ts';
import { auditTexts, type TextAudit } from './expansion-audit.ts';
import type { ModelSession } from './model-session.ts';
import { PIECE_KINDS, pieceKindsOf, pieceMarkingOf, type PieceKind } from './piece-kinds.ts';
import {
  TERM_ORIGINS,
  type CategoryFigures,
  type CorpusAudit,
  type FrequentExpansion,
  type KindFigures,
  type TermOrigin,
  type WidespreadTerm,
} from '../../contract/model/expansion-audit.ts';

export { TERM_ORIGINS };
export type { CategoryFigures, CorpusAudit, FrequentExpansion, KindFigures, TermOrigin, WidespreadTerm };

const [INPUT, EXPANSION] = [TERM_ORIGINS.indexOf('input'), TERM_ORIGINS.indexOf('expansion')];

export interface CorpusAuditOptions {
  /** Rows of each term list (0: every term). */
  top: number;
  /** Texts per call to the encoder (each call batches them by the session's batch size). */
  chunk?: number;
  onProgress?: (done: number, total: number) => void;
}

/** Sums of one corpus's audits: weight and active dimensions per (origin, kind) cell, and per vocabulary id. */
class CorpusTally {
  readonly weight = new Float64Array(TERM_ORIGINS.length * PIECE_KINDS.length); // (origin, kind)
  readonly dims = new Float64Array(TERM_ORIGINS.length * PIECE_KINDS.length); // (origin, kind)
  readonly activeDocs: Uint32Array; // (V,)
  readonly activeWeight: Float64Array; // (V,)
  readonly expansionDocs: Uint32Array; // (V,)
  readonly expansionWeight: Float64Array; // (V,)
  documents = 0;

  constructor(private readonly kinds: Uint8Array) {
    const V = kinds.length;
    this.activeDocs = new Uint32Array(V);
    this.activeWeight = new Float64Array(V);
    this.expansionDocs = new Uint32Array(V);
    this.expansionWeight = new Float64Array(V);
  }

  add(audit: TextAudit): void {
    this.documents++;
    for (const { id, weight, expansion } of audit.terms) {
      const cell = (expansion ? EXPANSION : INPUT) * PIECE_KINDS.length + this.kinds[id];
      this.weight[cell] += weight;
      this.dims[cell]++;
      this.activeDocs[id]++;
      this.activeWeight[id] += weight;
      if (!expansion) continue;
      this.expansionDocs[id]++;
      this.expansionWeight[id] += weight;
    }
  }

  /** Figures of the cells `inCategory` picks (by origin index and kind index). */
  figures(inCategory: (origin: number, kind: number) => boolean): CategoryFigures {
    let weight = 0;
    let dims = 0;
    this.weight.forEach((w, cell) => {
      if (!inCategory(Math.floor(cell / PIECE_KINDS.length), cell % PIECE_KINDS.length)) return;
      weight += w;
      dims += this.dims[cell];
    });
    const [totalWeight, totalDims] = [sum(this.weight), sum(this.dims)];
    return {
      weightShare: ratio(weight, totalWeight),
      dimsShare: ratio(dims, totalDims),
      meanWeight: ratio(weight, this.documents),
      meanDims: ratio(dims, this.documents),
    };
  }
}

function sum(values: Float64Array): number {
  return values.reduce((total, v) => total + v, 0);
}

function ratio(part: number, whole: number): number {
  return whole > 0 ? part / whole : 0;
}

/** The ids whose `count` is positive, most first (then by `weight`, then id), at most `top` of them (0: all). */
function mostFrequent(count: Uint32Array, weight: Float64Array, top: number): number[] {
  const ids: number[] = [];
  count.forEach((n, id) => n > 0 && ids.push(id));
  ids.sort((a, b) => count[b] - count[a] || weight[b] - weight[a] || a - b);
  return top > 0 ? ids.slice(0, top) : ids;
}

/** A text with nothing but white space: it is skipped and counted, never encoded. */
export function isBlankText(text: string): boolean {
  return text.trim() === '';
}

/** Audits every non-blank text under `request` (blank ones are skipped and counted) and sums where the weight goes. */
export async function auditCorpus(
  session: ModelSession,
  texts: readonly string[],
  request: EncodeRequest,
  options: CorpusAuditOptions,
): Promise<CorpusAudit> {
  const vocab = session.vocabulary();
  const marking = pieceMarkingOf(vocab);
  const tally = new CorpusTally(pieceKindsOf(vocab, session.model.tokenizer.specialIds, marking));
  const documents = texts.filter((text) => !isBlankText(text));
  const chunk = options.chunk ?? 256;
  for (let start = 0; start < documents.length; start += chunk) {
    const audits = await auditTexts(session, documents.slice(start, start + chunk), request);
    for (const audit of audits) tally.add(audit);
    options.onProgress?.(Math.min(start + chunk, documents.length), documents.length);
  }
  return {
    k: request.k,
    documents: tally.documents,
    skipped: texts.length - documents.length,
    meanActiveDims: ratio(sum(tally.dims), tally.documents),
    meanWeight: ratio(sum(tally.weight), tally.documents),
    subwordMarking: `"${marking.marker}" marks ${marking.marksWordStarts ? 'word starts' : 'continuation pieces'}`,
    stopWords: STOP_WORDS_SOURCE,
    origins: Object.fromEntries(TERM_ORIGINS.map((name, o) => [name, tally.figures((origin) => origin === o)])) as Record<
      TermOrigin,
      CategoryFigures
    >,
    kinds: Object.fromEntries(
      PIECE_KINDS.map((name, kind) => {
        const figures = tally.figures((_, k) => k === kind);
        const expanded = tally.figures((origin, k) => k === kind && origin === EXPANSION);
        return [name, { ...figures, expansionShare: ratio(expanded.weightShare, figures.weightShare) }];
      }),
    ) as Record<PieceKind, KindFigures>,
    frequentExpansions: mostFrequent(tally.expansionDocs, tally.expansionWeight, options.top).map((id) => ({
      term: vocab[id],
      documents: tally.expansionDocs[id],
      meanWeight: tally.expansionWeight[id] / tally.expansionDocs[id],
    })),
    widespreadTerms: mostFrequent(tally.activeDocs, tally.activeWeight, options.top).map((id) => ({
      term: vocab[id],
      documents: tally.activeDocs[id],
      share: tally.activeDocs[id] / tally.documents,
      meanWeight: tally.activeWeight[id] / tally.activeDocs[id],
      asExpansion: tally.expansionDocs[id],
    })),
  };
}

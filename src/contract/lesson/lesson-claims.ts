// What the lesson says about its numbers: every sentence that compares (sparse or dense, which k is ahead, fewer terms,
// what the losses mean) is written here from the figures on screen, so that it changes its wording when they disagree.
// The live lesson and the recorded one (public/lesson/trace.json) pass their figures through the same functions.
import type { HeldOutMeasure, LessonFrame, LessonVector } from './lesson-frames.ts';

/** A vector with at most this share of its dimensions active is called sparse; above it, dense. */
export const SPARSE_SHARE = 0.05;

/** A ratio of two figures within this factor of 1 is "about the same". */
const SAME_WITHIN = 1.05;

/** A ranking loss under this is "0" as the page prints it: the training batches are separated with nothing left. */
const SATURATED_LOSS = 0.005;

/** A count as the sentences print it: 29,717. */
export function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** A figure as the page's tables and charts print it: three significant digits, four from 1000 up (82,720; 16,060). */
export function figure(value: number): string {
  if (!Number.isFinite(value)) return '–';
  if (Math.abs(value) >= 1000) return count(Number(value.toPrecision(4)));
  if (value !== 0 && Math.abs(value) < 1e-3) return value.toExponential(1);
  return String(Number(value.toPrecision(3)));
}

/** How many times a is b, as the sentences print it: 1.3, 18, 240. */
export function times(a: number, b: number): string {
  const r = a / b;
  return String(Number(r.toPrecision(r < 100 ? 2 : 3)));
}

/** A share as a percentage: 97.4%, 4.4%, under 0.1%. */
export function percent(share: number): string {
  return share > 0 && share < 0.001 ? 'under 0.1%' : `${(100 * share).toFixed(1)}%`;
}

/** "k = 1", or "k = 1 (the head as loaded)" where the reader should be told once. */
function kName(k: number, explain = false): string {
  return k === 1 && explain ? 'k = 1 (the head as loaded)' : `k = ${k}`;
}

/** The k others are compared with: the head as loaded when the lesson has it, else the smallest k. */
export function referenceK(ks: readonly number[]): number {
  return ks.includes(1) ? 1 : Math.min(...ks);
}

/** Of `entries`, the one ahead (higher or lower is better), or null when the best two print the same (`print`). */
export function leaderOf<T extends { k: number; value: number }>(
  entries: readonly T[],
  better: 'higher' | 'lower',
  print: (value: number) => string,
): T | null {
  const sorted = [...entries].sort((a, b) => (better === 'higher' ? b.value - a.value : a.value - b.value));
  if (sorted.length < 2) return sorted[0] ?? null;
  return print(sorted[0].value) === print(sorted[1].value) ? null : sorted[0];
}

/** nDCG@10 as the page prints it (three decimals). */
const ndcg = (value: number) => value.toFixed(3);

// ---------------------------------------------------------------------------------------------------------------------
// Step 1: is the vector sparse?

export interface SparsityClaim {
  /** At most SPARSE_SHARE of the dimensions active. */
  sparse: boolean;
  /** Fewer than half of the dimensions active: most entries are zero, whether or not the vector is sparse yet. */
  mostlyZero: boolean;
  /** Active share of the vocabulary. */
  share: number;
  text: string;
}

/**
 * Step 1's sentence about one vector: how many of V dimensions are active; "sparse" only when at most SPARSE_SHARE of
 * them are; "most entries are zero" only when fewer than half are active (then it says what training still has to
 * prune); above half it says plainly that the raw vector is dense, and why. `demo`: the vector is the demo backbone's
 * (the sentence may then compare it with a real masked LM).
 */
export function sparsityClaim(vector: Pick<LessonVector, 'k' | 'activeDims' | 'vocabSize'>, demo: boolean): SparsityClaim {
  const { k, activeDims, vocabSize } = vector;
  const share = vocabSize > 0 ? activeDims / vocabSize : 1;
  const active = `At k = ${k}, ${count(activeDims)} of its ${count(vocabSize)} dimensions are active (${percent(share)})`;
  const training =
    'What makes a SPLADE vector sparse is training with the FLOPS penalty (step 3), which pushes the small weights to zero.';
  if (share <= SPARSE_SHARE)
    return { sparse: true, mostlyZero: true, share, text: `${active}: the vector is sparse, every other entry is exactly zero.` };
  if (share < 0.5) {
    const like = demo
      ? ' As in a real masked LM such as BERT, most words get a negative logit, which log(1 + ReLU) sets to zero.'
      : '';
    return {
      sparse: false,
      mostlyZero: true,
      share,
      text:
        `${active}: most entries are zero (${percent(1 - share)}), yet ${count(activeDims)} terms are far more than a ` +
        `trained SPLADE vector keeps (tens to a few hundred).${like} ${training}`,
    };
  }
  const who = demo ? 'this demo backbone' : 'this model';
  const real = demo
    ? ' A real masked LM such as BERT gives most words a negative logit, so the same formula keeps far fewer terms (hundreds to a few thousand).'
    : '';
  return {
    sparse: false,
    mostlyZero: false,
    share,
    text:
      `${active}: ${demo ? "this demo's" : "this model's"} raw vector is dense, not sparse. log(1 + ReLU) keeps every ` +
      `positive logit, and ${who} gives most words a positive one.${real} ${training}`,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Step 2: what dividing the head did to the sentence's vector

/** "10 times smaller (18.7 → 1.83)", "larger (…)", "about the same (…)". */
function change(from: number, to: number, print: (v: number) => string = figure): string {
  const span = `(${print(from)} → ${print(to)})`;
  if (from > 0 && to > 0 && Math.max(from / to, to / from) < SAME_WITHIN) return `about the same ${span}`;
  if (to < from) return to > 0 ? `${times(from, to)} times smaller ${span}` : `down to 0 ${span}`;
  return from > 0 ? `${times(to, from)} times larger ${span}` : `larger ${span}`;
}

/** What the active dimensions did under division, and whether that is "fewer terms". */
function dimsChange(from: number, to: number): { fewer: boolean; text: string } {
  const span = `(${count(from)} → ${count(to)})`;
  const ratio = from > 0 ? to / from : 1;
  if (ratio <= 0.5)
    return { fewer: true, text: `far fewer active dimensions ${span}, ${times(from, Math.max(to, 1))} times fewer` };
  if (ratio < 1 / SAME_WITHIN) return { fewer: true, text: `fewer active dimensions ${span}` };
  if (ratio <= SAME_WITHIN) return { fewer: false, text: `about as many active dimensions ${span}` };
  return { fewer: false, text: `more active dimensions ${span}` };
}

export interface DivisionClaim {
  k: number;
  /** The divided vector has fewer active dimensions than the reference's. */
  fewerTerms: boolean;
  /** Its FLOPS are lower. */
  cheaper: boolean;
  text: string;
}

/** Step 2's sentence for each divided k: its largest logit, FLOPS and active dimensions against the reference k's. */
export function divisionClaims(vectors: readonly LessonVector[]): DivisionClaim[] {
  if (vectors.length < 2) return [];
  const refK = referenceK(vectors.map((v) => v.k));
  const ref = vectors.find((v) => v.k === refK)!;
  return vectors
    .filter((v) => v !== ref)
    .map((v) => {
      const dims = dimsChange(ref.activeDims, v.activeDims);
      const lead = `With the head divided by ${v.k} instead of ${ref.k === 1 ? 'as loaded' : `by ${ref.k}`}`;
      const why = dims.fewer
        ? ''
        : ': dividing shrinks every weight, but it removes a term only where the logit falls to 0 or below. Fewer terms have to come from training (step 3)';
      return {
        k: v.k,
        fewerTerms: dims.fewer,
        cheaper: v.flops < ref.flops,
        text:
          `${lead}, the largest logit is ${change(ref.maxLogit, v.maxLogit)} and the vector's FLOPS ` +
          `${change(ref.flops, v.flops)}; it keeps ${dims.text}${why}.`,
      };
    });
}

// ---------------------------------------------------------------------------------------------------------------------
// Step 3: where the training stands

export interface TrainingClaim {
  /** The k ahead on held-out nDCG@10 at the last measured step (null: level, or nothing measured yet). */
  ndcgLeader: number | null;
  /** The k whose training queries keep the fewest active dimensions now (null: level or before the first step). */
  sparsest: number | null;
  /** The k with the lowest retrieval FLOPS on the held-out queries at the last measured step (null: level, or none). */
  cheapest: number | null;
  text: string;
}

/**
 * Step 3's sentence: at the latest frame, who keeps fewer terms per training query; at the last measured step, who is
 * ahead on the held-out queries and who costs the least to search them (retrieval FLOPS).
 */
export function trainingClaim(frames: readonly LessonFrame[]): TrainingClaim | null {
  const last = frames.at(-1);
  if (!last) return null;
  const parts: string[] = [];
  let sparsest: number | null = null;
  const active = last.runs.flatMap((r) => (r.active ? [{ k: r.k, value: r.active.queries }] : []));
  if (active.length === last.runs.length && active.length >= 2) {
    // printed as the active-dimensions chart prints them
    const leader = leaderOf(active, 'lower', figure);
    sparsest = leader?.k ?? null;
    if (leader) {
      const others = active.filter((a) => a !== leader);
      parts.push(
        `after step ${last.step}, k = ${leader.k}'s training queries keep ${figure(leader.value)} active dimensions against ` +
          others.map((o) => `${figure(o.value)} for k = ${o.k}`).join(' and ') +
          ` (${times(Math.min(...others.map((o) => o.value)), Math.max(leader.value, 1))} times fewer)`,
      );
    } else
      parts.push(`after step ${last.step}, every k's training queries keep about ${figure(active[0].value)} active dimensions`);
  }
  const measured = [...frames].reverse().find((f) => f.runs.every((r) => r.heldOut));
  let ndcgLeader: number | null = null;
  let cheapest: number | null = null;
  if (measured) {
    const scores = measured.runs.map((r) => ({ k: r.k, value: r.heldOut!.ndcg10 }));
    const leader = leaderOf(scores, 'higher', ndcg);
    ndcgLeader = leader?.k ?? null;
    const when = measured.step === 0 ? 'before training' : `at step ${measured.step}`;
    const list = (entries: typeof scores) => entries.map((s) => `${ndcg(s.value)} for k = ${s.k}`).join(' and ');
    parts.push(
      leader
        ? `on the held-out queries ${when}, k = ${leader.k} is ahead (nDCG@10 ${ndcg(leader.value)} against ${list(scores.filter((s) => s !== leader))})`
        : `on the held-out queries ${when}, the ks are level (nDCG@10 ${list(scores)})`,
    );
    const costs = measured.runs.map((r) => ({ k: r.k, value: r.heldOut!.flops }));
    const lowest = leaderOf(costs, 'lower', figure);
    cheapest = lowest?.k ?? null;
    const others = (entries: typeof costs) => against(entries, figure);
    parts.push(
      lowest
        ? `k = ${lowest.k} costs the least to search them (retrieval FLOPS ${figure(lowest.value)} against ${others(costs.filter((c) => c !== lowest))})`
        : `the ks cost about the same to search them (retrieval FLOPS ${others(costs)})`,
    );
  }
  if (parts.length === 0) return null;
  const text = parts.join('; ');
  return { ndcgLeader, sparsest, cheapest, text: `${text[0].toUpperCase()}${text.slice(1)}.` };
}

// ---------------------------------------------------------------------------------------------------------------------
// Step 4: the take-away

/** One k's figures at the end of the lesson so far. */
export interface KOutcome {
  k: number;
  before: HeldOutMeasure;
  after: HeldOutMeasure;
  /** The step of `after`. */
  at: number;
  firstRank: number | null;
  lastRank: number | null;
  firstFlopsQ: number | null;
  lastFlopsQ: number | null;
}

/** Each k's figures from the frames so far (null before frame 0). */
export function lessonOutcomes(frames: readonly LessonFrame[]): KOutcome[] | null {
  const measured = frames.filter((f) => f.runs.every((r) => r.heldOut));
  if (measured.length === 0) return null;
  const first = frames.find((f) => f.runs.every((r) => r.losses));
  const last = frames.at(-1)!;
  const lastMeasured = measured.at(-1)!;
  return frames[0].runs.map((r, i) => ({
    k: r.k,
    before: measured[0].runs[i].heldOut!,
    after: lastMeasured.runs[i].heldOut!,
    at: lastMeasured.step,
    firstRank: first?.runs[i].losses?.rank ?? null,
    lastRank: last.runs[i].losses?.rank ?? null,
    firstFlopsQ: first?.runs[i].losses?.flopsQueries ?? null,
    lastFlopsQ: last.runs[i].losses?.flopsQueries ?? null,
  }));
}

export interface Takeaway {
  /** The k ahead on held-out nDCG@10, and the cheapest to search (lowest retrieval FLOPS); null: level. */
  ndcgLeader: number | null;
  cheapest: number | null;
  /** Who is ahead on nDCG@10 and on cost. */
  headline: string;
  /** How the ranking losses started (null before the first step). */
  start: string | null;
  /** What the final ranking losses mean (null before the first step). */
  losses: string | null;
}

/** "0.751 for k = 1 and 0.8 for k = 4". */
function against(entries: readonly { k: number; value: number }[], print: (v: number) => string): string {
  return entries.map((e) => `${print(e.value)} for k = ${e.k}`).join(' and ');
}

/**
 * The take-away: which k is ahead on held-out nDCG@10 and which costs least to search, from the last measured step;
 * "ahead" only for a k that is ahead. Cost is the retrieval FLOPS (the paper's and sentence-transformers' measure: the
 * terms a query and a document are expected to share, the work of an inverted-index search); where the cheapest k's
 * queries nonetheless keep more active dimensions, the sentence says so and why both hold. Then what the ranking
 * losses mean: a training loss of 0 is the training batches separated by a few huge scores (saturation,
 * over-fitting), not better ranking, whenever the k with the lowest loss is not the one that ranks best.
 */
export function lessonTakeaway(outcomes: readonly KOutcome[]): Takeaway {
  const at = outcomes[0].at;
  const when = at === 0 ? 'Before training' : `After ${at} steps`;
  const refK = referenceK(outcomes.map((o) => o.k));
  const scores = outcomes.map((o) => ({ k: o.k, value: o.after.ndcg10 }));
  const costs = outcomes.map((o) => ({ k: o.k, value: o.after.flops, dims: o.after.queryActiveDims }));
  const ndcgLeader = leaderOf(scores, 'higher', ndcg);
  const cheapest = leaderOf(costs, 'lower', figure);
  const named = (k: number) => kName(k, k === refK);
  const ndcgPart = ndcgLeader
    ? `ranks the held-out queries best (nDCG@10 ${ndcg(ndcgLeader.value)} against ${against(
        scores.filter((s) => s !== ndcgLeader),
        ndcg,
      )})`
    : null;
  const costPart = cheapest ? `costs the least to search (${costWords(cheapest, costs)})` : null;
  let headline: string;
  if (ndcgLeader && cheapest && ndcgLeader.k === cheapest.k)
    headline = `${when}, ${named(ndcgLeader.k)} is ahead on both counts: it ${ndcgPart}, and it ${costPart}.`;
  else {
    const rank = ndcgLeader
      ? `${named(ndcgLeader.k)} ${ndcgPart}`
      : `the ks are level on the held-out queries (nDCG@10 ${against(scores, ndcg)})`;
    const cost = cheapest
      ? `${named(cheapest.k)} ${costPart}`
      : `they cost about the same to search (retrieval FLOPS ${against(costs, figure)})`;
    const trade = ndcgLeader && cheapest ? ': here k trades effectiveness against cost' : '';
    headline = `${when}, ${rank}, while ${cost}${trade}.`;
  }
  return {
    ndcgLeader: ndcgLeader?.k ?? null,
    cheapest: cheapest?.k ?? null,
    headline,
    start: startClaim(outcomes, refK),
    losses: lossClaim(outcomes, ndcgLeader?.k ?? null),
  };
}

type Cost = { k: number; value: number; dims: number };

/** The cheapest k's retrieval FLOPS against the others', then its query dimensions, and why when they point the other way. */
function costWords(cheapest: Cost, costs: readonly Cost[]): string {
  const others = costs.filter((c) => c !== cheapest);
  const flops = `retrieval FLOPS ${figure(cheapest.value)} against ${against(others, figure)}, the terms a query and a document are expected to share`;
  const dims = (c: Cost) => ({ k: c.k, value: c.dims });
  const fewerElsewhere = others.filter((o) => count(o.dims) !== count(cheapest.dims) && o.dims < cheapest.dims);
  if (fewerElsewhere.length === 0)
    return `${flops}; ${count(cheapest.dims)} active dimensions per query against ${against(others.map(dims), count)}`;
  const fewest = fewerElsewhere.reduce((a, b) => (b.dims < a.dims ? b : a));
  return (
    `${flops}; yet its queries keep more active dimensions, ${count(cheapest.dims)} against ${against(others.map(dims), count)}: ` +
    `k = ${fewest.k}'s fewer terms are ones more documents share`
  );
}

/** How the reference k's first ranking loss compares with each divided k's. */
function startClaim(outcomes: readonly KOutcome[], refK: number): string | null {
  const ref = outcomes.find((o) => o.k === refK)!;
  const others = outcomes.filter((o) => o !== ref);
  if (ref.firstRank === null || others.some((o) => o.firstRank === null)) return null;
  const lowest = others.reduce((a, b) => (b.firstRank! < a.firstRank! ? b : a));
  const list = against(
    others.map((o) => ({ k: o.k, value: o.firstRank! })),
    figure,
  );
  if (ref.firstRank > lowest.firstRank! * 2 && lowest.firstRank! > 0)
    return (
      `At the first step, ${kName(refK)}'s ranking loss was ${figure(ref.firstRank)}, ${times(ref.firstRank, lowest.firstRank!)} ` +
      `times that of k = ${lowest.k} (${list}): long head rows start from huge scores, and so from huge mistakes.`
    );
  if (ref.firstRank > lowest.firstRank!)
    return `At the first step, ${kName(refK)}'s ranking loss was ${figure(ref.firstRank)}, somewhat above ${list}.`;
  return `At the first step, ${kName(refK)}'s ranking loss was ${figure(ref.firstRank)}, not above ${list}: dividing did not make the start easier here.`;
}

/** What the last ranking losses mean beside the held-out ranking. */
function lossClaim(outcomes: readonly KOutcome[], ndcgLeader: number | null): string | null {
  if (outcomes.some((o) => o.lastRank === null)) return null;
  const losses = outcomes.map((o) => ({ k: o.k, value: o.lastRank! }));
  const lowest = leaderOf(losses, 'lower', figure);
  const ended = `The ranking loss on the training batches ended at ${against(losses, figure)}.`;
  if (!lowest)
    return `${ended} A training loss says how well the training batches are separated, not how well new queries are ranked.`;
  const zero = lowest.value < SATURATED_LOSS;
  const saturated = zero
    ? ` A loss of 0 means every training query's positive document beat its negatives by a wide margin: with long rows a few huge scores do that easily.`
    : '';
  if (ndcgLeader === null)
    return `${ended}${saturated} A lower training loss is not better ranking: on the held-out queries the ks are level.`;
  if (lowest.k === ndcgLeader)
    return `${ended}${saturated} Here k = ${lowest.k} both fits the training batches best and ranks the held-out queries best.`;
  return (
    `${ended}${saturated} So k = ${lowest.k}'s lower loss is ${zero ? 'saturation, over-fitting the training batches' : 'a closer fit to the training batches'}, ` +
    `not better ranking: on the held-out queries, which it never trained on, k = ${ndcgLeader} ranks better.`
  );
}

// ---------------------------------------------------------------------------------------------------------------------
// Step 2's recorded masked-LM run

/** "fell from 9.91 to 8.16", "rose from …", "stayed at …". */
export function movedFromTo(from: number, to: number, digits: number): string {
  const [a, b] = [from.toFixed(digits), to.toFixed(digits)];
  if (a === b) return `stayed at ${a}`;
  return `${to < from ? 'fell' : 'rose'} from ${a} to ${b}`;
}

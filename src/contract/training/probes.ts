// The probe texts a training run encodes as it goes (defaults, limits, the check) and the snapshots it reports.
import { InvalidRequestError } from '../limits.ts';
import type { SparseSummary } from '../model/model-results.ts';

export interface ProbeText {
  role: 'query' | 'document';
  text: string;
}

/** Two questions and a passage answering each: a healthy model scores each query highest with its own passage. */
export const DEFAULT_PROBES: readonly ProbeText[] = [
  { role: 'query', text: 'what causes the seasons on earth' },
  { role: 'query', text: 'how do vaccines protect against disease' },
  {
    role: 'document',
    text: "The seasons are caused by the tilt of Earth's axis, which changes how directly sunlight reaches each hemisphere during the year.",
  },
  {
    role: 'document',
    text: 'A vaccine exposes the immune system to a harmless part of a germ, so that it learns to recognise and fight the real infection.',
  },
];

export const PROBE_LIMITS = { texts: 16, characters: 2000, topTerms: 10 } as const;

/** One probe text as the model encodes it at a step. */
export interface ProbeView extends SparseSummary {
  role: ProbeText['role'];
}

/** Every probe at one step: views in the order given, and the score of every query probe with every document probe. */
export interface ProbeSnapshot {
  /** Steps taken when it was taken (0: before training). */
  step: number;
  probes: ProbeView[];
  /** scores[i][j]: the i-th query probe against the j-th document probe (dot product of the sparse vectors). */
  scores: number[][];
}

/** Checks probe texts (count, length, not blank) before a run starts. */
export function checkProbes(probes: readonly ProbeText[]): ProbeText[] {
  if (probes.length > PROBE_LIMITS.texts)
    throw new InvalidRequestError(`At most ${PROBE_LIMITS.texts} probe texts, got ${probes.length}`);
  return probes.map(({ role, text }, i) => {
    const trimmed = text.trim();
    if (!trimmed) throw new InvalidRequestError(`Probe text ${i + 1} is blank`);
    if (trimmed.length > PROBE_LIMITS.characters)
      throw new InvalidRequestError(`Probe text ${i + 1} has ${trimmed.length} characters; at most ${PROBE_LIMITS.characters}`);
    if (role !== 'query' && role !== 'document')
      throw new InvalidRequestError(`Probe text ${i + 1} has role "${String(role)}"; use query or document`);
    return { role, text: trimmed };
  });
}

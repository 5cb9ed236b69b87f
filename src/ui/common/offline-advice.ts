// What the page says when a Hub request got no answer at all (offline, or the Hub unreachable): that, and what works
// without the network for the thing asked for (a model, a retrieval set, training triplets), instead of a bare
// "network failure (Failed to fetch)".
import { saysNoAnswer } from '../../contract/errors.ts';

/** What was asked of the Hub. */
export type HubAsk = 'model' | 'set' | 'triplets';

const WITHOUT_NETWORK: Record<HubAsk, string> = {
  model:
    "Without the network: the demo backbone is built into the page (Load the demo backbone instead), or pick a model's " +
    'files on this computer above (config.json, the weights, the vocabulary). "npm start" (or a copy of the built site) ' +
    'serves the page with its demo and built-in data, no network needed; Hub downloads that finished are kept in this browser.',
  set:
    "Without the network: use the lesson's generated task (synthetic, built in), or pick a BEIR folder on this computer " +
    '(corpus.jsonl, queries.jsonl, qrels/test.tsv; "splade-lab lesson --write-task" writes one). Sets read from the Hub ' +
    'before are kept in this browser.',
  triplets:
    "Without the network: use the lesson's generated triplets (synthetic, built in), or pick a triplet file on this " +
    'computer (TSV or JSONL).',
};

/** The advice for a failed Hub request, or null when the server did answer (a 404, a refusal: its message says why). */
export function offlineAdvice(message: string, asked: HubAsk): string | null {
  const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
  if (!offline && !saysNoAnswer(message)) return null;
  const why = offline ? 'This browser is offline.' : 'The Hub did not answer: this computer may be offline.';
  return `${why} ${WITHOUT_NETWORK[asked]}`;
}

// Pre-masked masked-LM sequences for exact reproduction, as a PyTorch script would feed them: one JSON object per
// line, {"input_ids": [...], "attention_mask": [...], "labels": [...]} (labels -100 where not predicted), checked
// field by field with the file and line named. A label on a padded position (attention 0) is refused: transformers
// would predict it from the padding's hidden state, which the GPU model does not compute as PyTorch does.
import { splitLines } from '../line-breaks.ts';
import { decodeUtf8Strict } from '../text-decode.ts';
import { clip } from '../format-error.ts';
import { IGNORED_LABEL } from '../../contract/training/mlm-recipe.ts';

export interface PreMaskedRow {
  ids: Int32Array;
  attention: Uint8Array;
  labels: Int32Array;
}

export class MaskedBatchesError extends Error {
  override name = 'MaskedBatchesError';
}

export interface MaskedBatchesLimits {
  vocabSize: number;
  maxLength: number;
  /** What maxLength is, for the message of a longer sequence (default "the run's --max-length <maxLength>"). */
  maxLengthWhat?: string;
}

/**
 * The rows of a pre-masked batches file; ids and labels must be below `vocabSize`, lengths at most `maxLength`, and no
 * label may sit on a padded position.
 */
export function readMaskedBatches(bytes: Uint8Array, name: string, limits: MaskedBatchesLimits): PreMaskedRow[] {
  const rows: PreMaskedRow[] = [];
  let labelled = 0;
  splitLines(decodeUtf8Strict(bytes, name)).forEach((line, i) => {
    if (!line.trim()) return;
    const where = `${name}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new MaskedBatchesError(
        `${where}: not valid JSON (${error instanceof Error ? error.message : String(error)}): ${clip(line)}`,
      );
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new MaskedBatchesError(`${where}: expected an object {"input_ids", "attention_mask", "labels"}`);
    const record = value as Record<string, unknown>;
    const field = (key: string, ok: (x: number) => boolean, allowed: string): number[] => {
      const list = record[key];
      if (!Array.isArray(list)) throw new MaskedBatchesError(`${where}: "${key}" is missing or not an array`);
      const bad = list.findIndex((x) => typeof x !== 'number' || !Number.isInteger(x) || !ok(x));
      if (bad >= 0)
        throw new MaskedBatchesError(`${where}: "${key}"[${bad}] is ${JSON.stringify(list[bad])}, expected ${allowed}`);
      return list as number[];
    };
    const V = limits.vocabSize;
    const ids = field('input_ids', (x) => x >= 0 && x < V, `an id from 0 to ${V - 1}`);
    const attention = field('attention_mask', (x) => x === 0 || x === 1, '0 or 1');
    const labels = field('labels', (x) => x === IGNORED_LABEL || (x >= 0 && x < V), `-100 or an id from 0 to ${V - 1}`);
    if (attention.length !== ids.length || labels.length !== ids.length)
      throw new MaskedBatchesError(
        `${where}: "input_ids" has ${ids.length} values, "attention_mask" ${attention.length} and "labels" ${labels.length}; they must be equal`,
      );
    if (ids.length === 0 || !attention.includes(1)) throw new MaskedBatchesError(`${where}: the sequence has no attended token`);
    if (ids.length > limits.maxLength)
      throw new MaskedBatchesError(
        `${where}: ${ids.length} tokens, over ${limits.maxLengthWhat ?? `the run's --max-length ${limits.maxLength}`}`,
      );
    const padded = labels.findIndex((label, i) => label !== IGNORED_LABEL && attention[i] === 0);
    if (padded >= 0)
      throw new MaskedBatchesError(
        `${where}: "labels"[${padded}] is ${labels[padded]} where "attention_mask"[${padded}] is 0: a padded position ` +
          "is never predicted here (transformers would predict it from the padding's hidden state, which splade-lab " +
          'does not reproduce); set its label to -100, or its attention to 1 if the token is real',
      );
    labelled += labels.filter((x) => x !== IGNORED_LABEL).length;
    rows.push({ ids: Int32Array.from(ids), attention: Uint8Array.from(attention), labels: Int32Array.from(labels) });
  });
  if (rows.length === 0) throw new MaskedBatchesError(`${name}: holds no sequence (an empty file)`);
  if (labelled === 0)
    throw new MaskedBatchesError(`${name}: has no label other than -100 in its ${rows.length} sequences: nothing to predict`);
  return rows;
}

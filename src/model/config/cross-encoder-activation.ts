// The activation sentence-transformers' CrossEncoder applies on top of the logits, as saved by its versions: reported
// only, since splade-lab writes raw logits (a teacher's scores are never squashed).
import { clip } from '../../io/format-error.ts';
import type { Json } from './config-reader.ts';

export interface CrossEncoderActivation {
  /** The saved class path, e.g. "torch.nn.modules.activation.Sigmoid" or "torch.nn.modules.linear.Identity". */
  name: string;
  /** The file and key it was read from. */
  from: string;
}

/**
 * The first of: config_sentence_transformers.json's `activation_fn`; config.json's `sentence_transformers.activation_fn`
 * (sentence-transformers 4); config.json's `sbert_ce_default_activation_function` (2 and 3). Null when none is saved.
 */
export function crossEncoderActivation(stConfig: unknown, hfConfig: Json): CrossEncoderActivation | null {
  const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? clip(value, 120) : null);
  const st = isObject(stConfig) ? text(stConfig.activation_fn) : null;
  if (st) return { name: st, from: 'config_sentence_transformers.json activation_fn' };
  const nested = isObject(hfConfig.sentence_transformers) ? text(hfConfig.sentence_transformers.activation_fn) : null;
  if (nested) return { name: nested, from: 'config.json sentence_transformers.activation_fn' };
  const legacy = text(hfConfig.sbert_ce_default_activation_function);
  if (legacy) return { name: legacy, from: 'config.json sbert_ce_default_activation_function' };
  return null;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

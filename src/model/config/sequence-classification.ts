// Reads the classification fields of a cross-encoder's config.json (architectures, id2label / num_labels,
// classifier_dropout, ModernBERT's classifier_pooling) as transformers' PretrainedConfig and the classifiers read them.
import { clip } from '../../io/format-error.ts';
import { describeJsonValue } from '../../util/json-value.ts';
import { ConfigError, type Json } from './config-reader.ts';

/** The sequence-classification architectures this loader runs. */
export const CLASSIFIER_ARCHITECTURES = ['BertForSequenceClassification', 'ModernBertForSequenceClassification'] as const;

/** What ModernBertForSequenceClassification pools before its head: the first token, or the mean of the real ones. */
export type ClassifierPooling = 'cls' | 'mean';

export type ClassifierArchitecture = (typeof CLASSIFIER_ARCHITECTURES)[number];

/** Most labels a classifier may declare (a corrupt id2label cannot size a huge classifier matrix). */
const MAX_LABELS = 1024;

export interface ClassifierConfig {
  architecture: ClassifierArchitecture;
  /** Rows of the classifier matrix: the logits per pair. */
  numLabels: number;
  /** Label names by id (id2label; transformers' LABEL_i when only num_labels is given). */
  labels: string[];
  /** Where numLabels came from: id2label, num_labels, or transformers' default of 2. */
  labelsFrom: 'id2label' | 'num_labels' | 'default';
  /** classifier_dropout (null: hidden_dropout_prob is used in training); never applied when scoring. */
  classifierDropout: number | null;
  /** ModernBERT's classifier_pooling (default "cls"); BERT's pooler always reads the first token. */
  pooling: ClassifierPooling;
  /** Things read that a caller may want to show (num_labels disagreeing with id2label). */
  notes: string[];
}

/** The classification fields of `json` (config.json); refuses any architecture but CLASSIFIER_ARCHITECTURES. */
export function parseClassifierConfig(json: Json, source: string): ClassifierConfig {
  const architectures = Array.isArray(json.architectures) ? json.architectures : [];
  const found = architectures.find((a): a is ClassifierArchitecture =>
    (CLASSIFIER_ARCHITECTURES as readonly unknown[]).includes(a),
  );
  if (!found) {
    const named =
      architectures.length > 0 ? `architectures ${clip(architectures.map(String).join(', '), 120)}` : 'no architectures';
    throw new ConfigError(
      `${source}: ${named}; a cross-encoder teacher must be one of ${CLASSIFIER_ARCHITECTURES.join(', ')} ` +
        `(a masked-LM or base model has no classifier to score pairs with)`,
    );
  }
  const notes: string[] = [];
  const { numLabels, labels, labelsFrom } = readLabels(json, source, notes);
  const pooling = found === 'ModernBertForSequenceClassification' ? readPooling(json, source) : 'cls';
  return { architecture: found, numLabels, labels, labelsFrom, classifierDropout: readDropout(json, source), pooling, notes };
}

/**
 * PretrainedConfig: id2label when present (its keys 0..n-1; a disagreeing num_labels is overridden by it, with a
 * warning), else num_labels with LABEL_i names, else 2 labels.
 */
function readLabels(json: Json, source: string, notes: string[]): Pick<ClassifierConfig, 'numLabels' | 'labels' | 'labelsFrom'> {
  const declared = json.num_labels;
  if (declared !== undefined && declared !== null) {
    if (typeof declared !== 'number' || !Number.isInteger(declared) || declared < 1 || declared > MAX_LABELS) {
      throw new ConfigError(`${source}: "num_labels" must be an integer in 1..${MAX_LABELS}, got ${describeJsonValue(declared)}`);
    }
  }
  const map = json.id2label;
  if (map !== undefined && map !== null) {
    if (typeof map !== 'object' || Array.isArray(map)) {
      throw new ConfigError(`${source}: "id2label" must be an object of id -> label, got ${describeJsonValue(map)}`);
    }
    const entries = Object.entries(map as Json);
    if (entries.length < 1 || entries.length > MAX_LABELS) {
      throw new ConfigError(`${source}: "id2label" has ${entries.length} labels; expected 1..${MAX_LABELS}`);
    }
    const byId = new Map<number, string>();
    for (const [key, value] of entries) {
      const id = Number(key);
      if (!/^\d+$/.test(key) || id >= entries.length || byId.has(id)) {
        throw new ConfigError(`${source}: "id2label" key "${clip(key, 20)}" is not one of the ids 0..${entries.length - 1}`);
      }
      if (typeof value !== 'string') {
        throw new ConfigError(`${source}: "id2label" label ${key} must be a string, got ${describeJsonValue(value)}`);
      }
      byId.set(id, value);
    }
    const labels = Array.from({ length: entries.length }, (_, id) => byId.get(id)!);
    if (typeof declared === 'number' && declared !== labels.length) {
      notes.push(`num_labels ${declared} disagrees with the ${labels.length} labels of id2label; id2label is used`);
    }
    return { numLabels: labels.length, labels, labelsFrom: 'id2label' };
  }
  if (typeof declared === 'number') {
    return { numLabels: declared, labels: Array.from({ length: declared }, (_, i) => `LABEL_${i}`), labelsFrom: 'num_labels' };
  }
  return { numLabels: 2, labels: ['LABEL_0', 'LABEL_1'], labelsFrom: 'default' };
}

function readDropout(json: Json, source: string): number | null {
  const rate = json.classifier_dropout;
  if (rate === undefined || rate === null) return null;
  if (typeof rate !== 'number' || !(rate >= 0 && rate < 1)) {
    throw new ConfigError(`${source}: "classifier_dropout" must be a probability in [0, 1), got ${describeJsonValue(rate)}`);
  }
  return rate;
}

function readPooling(json: Json, source: string): ClassifierPooling {
  const pooling = json.classifier_pooling ?? 'cls';
  if (pooling !== 'cls' && pooling !== 'mean') {
    throw new ConfigError(`${source}: "classifier_pooling" must be "cls" or "mean", got ${describeJsonValue(pooling)}`);
  }
  return pooling;
}

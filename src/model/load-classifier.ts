// Loads a cross-encoder from a Hugging Face folder: BertForSequenceClassification (the BERT encoder, the pooler
// bert.pooler.dense, the classifier) or ModernBertForSequenceClassification (the encoder, its head.dense/head.norm, the
// classifier), the label fields and sentence-transformers' saved activation (reported, never applied).
import { loadCheckpoint } from '../io/formats/model-folder.ts';
import { readJsonFile, type FileSource, type ReadOptions } from '../io/file-source.ts';
import { clip } from '../io/format-error.ts';
import type { HostTensor } from '../io/host-tensor.ts';
import type { TextTokenizer } from '../io/tokenizer/tokenizer.ts';
import { loadTokenizer } from '../io/tokenizer/tokenizer-load.ts';
import type { ModelConfig } from '../contract/model/model-config.ts';
import { parseModelConfig } from './config.ts';
import type { Json } from './config/config-reader.ts';
import { crossEncoderActivation, type CrossEncoderActivation } from './config/cross-encoder-activation.ts';
import { parseClassifierConfig, type ClassifierConfig } from './config/sequence-classification.ts';
import { P, parameterLayout } from './layout.ts';
import { checkpointByteBudget } from './load-model.ts';
import { mapHuggingFaceTensors } from './weights.ts';

/**
 * What follows the encoder: BERT's pooler dense (d x d, then tanh; null for ModernBERT, whose head is the encoder's
 * own head.dense + head.norm) and the classifier (numLabels x d), PyTorch [out, in] weights.
 */
export interface ClassifierHead {
  pooler: { weight: HostTensor; bias: HostTensor } | null; // (d, d), (d)
  classifierWeight: HostTensor; // (numLabels, d)
  classifierBias: HostTensor; // (numLabels)
}

export interface LoadedClassifier {
  /** The encoder's config (its MLM head tied and without a decoder bias: a classifier has none). */
  config: ModelConfig;
  classifier: ClassifierConfig;
  /** The encoder's parameters by internal name; BERT's MLM head, which its classifier lacks, as zero placeholders. */
  params: Map<string, HostTensor>;
  head: ClassifierHead;
  tokenizer: TextTokenizer;
  /** sentence-transformers' saved activation (null: none saved); the logits this project writes never apply it. */
  activation: CrossEncoderActivation | null;
  /** Checkpoint tensors nothing used (transformers' "Some weights of the checkpoint were not used"). */
  unusedTensors: string[];
  notes: string[];
}

/** The MLM head's parameters, which BERT's classifier does not have (ModernBERT's classifier has head.*). */
const MLM_HEAD = /^(head\.|decoder\.)/;

/** The encoder family each classifier architecture runs on. */
const FAMILY = { BertForSequenceClassification: 'bert', ModernBertForSequenceClassification: 'modernbert' } as const;

export async function loadClassifier(source: FileSource, options: ReadOptions = {}): Promise<LoadedClassifier> {
  const json = await readJsonFile(source, 'config.json', options);
  if (json === null) throw new Error(`no config.json in ${source.label}`);
  const where = `${source.label}/config.json`;
  if (typeof json !== 'object' || Array.isArray(json)) throw new Error(`${where}: expected a JSON object`);
  const classifier = parseClassifierConfig(json as Json, where);
  const parsed = parseModelConfig(json, { source: where });
  if (parsed.architecture !== FAMILY[classifier.architecture]) {
    throw new Error(`${where}: architectures names ${classifier.architecture}, but model_type is "${parsed.modelType}"`);
  }
  const config: ModelConfig = { ...parsed, tieWordEmbeddings: true, decoderBias: false };
  const bert = classifier.architecture === 'BertForSequenceClassification';
  const checkpoint = await loadCheckpoint(source, { ...options, byteBudget: checkpointByteBudget(config) });
  const report = mapHuggingFaceTensors(config, checkpoint.tensors);
  const missing = report.missing.filter((m) => !(bert && MLM_HEAD.test(m.param)));
  const problems = [
    ...report.shapeMismatches.map((m) => `${clip(m.name, 120)}: shape [${m.actual}], expected [${m.expected}]`),
    ...missing.map((m) => `missing ${m.names[0]} [${m.shape}]`),
  ];
  if (problems.length > 0) {
    throw new Error(
      `${source.label}: the ${classifier.architecture} encoder weights do not match config.json ` +
        `(${missing.length} missing, ${report.shapeMismatches.length} misshapen):\n  ${problems.slice(0, 8).join('\n  ')}`,
    );
  }
  const params = withPlaceholders(config, report.params);
  const prefix = report.prefix || (bert ? 'bert.' : 'model.');
  const { hidden: d } = config;
  const n = classifier.numLabels;
  const take = (name: string, shape: number[], what: string): HostTensor => {
    const tensor = checkpoint.tensors.get(name);
    if (!tensor) {
      throw new Error(
        `${source.label}: ${classifier.architecture} needs ${name} [${shape}] (${what}), which the checkpoint lacks; ` +
          `is this a sequence-classification (cross-encoder) checkpoint?`,
      );
    }
    if (tensor.shape.length !== shape.length || tensor.shape.some((s, i) => s !== shape[i])) {
      throw new Error(`${source.label}: ${name} has shape [${tensor.shape}], expected [${shape}] (${what})`);
    }
    return tensor;
  };
  const head: ClassifierHead = {
    pooler: bert
      ? {
          weight: take(`${prefix}pooler.dense.weight`, [d, d], 'the pooler'),
          bias: take(`${prefix}pooler.dense.bias`, [d], 'the pooler'),
        }
      : null,
    classifierWeight: take('classifier.weight', [n, d], `the classifier, ${n} label${n === 1 ? '' : 's'}`),
    classifierBias: take('classifier.bias', [n], `the classifier, ${n} label${n === 1 ? '' : 's'}`),
  };
  const headNames = new Set([
    `${prefix}pooler.dense.weight`,
    `${prefix}pooler.dense.bias`,
    'classifier.weight',
    'classifier.bias',
  ]);
  const unusedTensors = [...report.unexpected.map((u) => u.name), ...report.ignored.map((i) => i.name)].filter(
    (name) => !headNames.has(name) && !/(^|\.)embeddings\.(position_ids|token_type_ids)$/.test(name),
  );
  const tokenizer = await loadTokenizer(source, options);
  if (tokenizer.vocabSize > config.vocabSize) {
    throw new Error(
      `${source.label}: the tokenizer has ${tokenizer.vocabSize} token ids but the word embeddings have ` +
        `${config.vocabSize} rows (config.json vocab_size); the tokenizer does not belong to this model`,
    );
  }
  const stConfig = await readJsonFile(source, 'config_sentence_transformers.json', options);
  const activation = crossEncoderActivation(stConfig, json as Json);
  return { config, classifier, params, head, tokenizer, activation, unusedTensors, notes: [...classifier.notes] };
}

/** The encoder's parameters with the MLM head's (unused by a classifier) as zeros, its norm scale as ones. */
function withPlaceholders(config: ModelConfig, found: Map<string, HostTensor>): Map<string, HostTensor> {
  const params = new Map(found);
  for (const spec of parameterLayout(config)) {
    if (params.has(spec.name) || !MLM_HEAD.test(spec.name)) continue;
    const data = new Float32Array(spec.shape.reduce((a, b) => a * b, 1));
    if (spec.name === P.headNorm('weight')) data.fill(1);
    params.set(spec.name, { shape: [...spec.shape], data });
  }
  return params;
}

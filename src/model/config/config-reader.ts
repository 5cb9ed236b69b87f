// What every family's config parser shares: the size limits, the error that names the file and key, a typed reader
// of config.json's keys, and the BERT-style defaults.
import { ModelConfig } from '../../contract/model/model-config.ts';
import { clip } from '../../io/format-error.ts';
import { describeJsonValue } from '../../util/json-value.ts';

/**
 * Largest sizes a config may declare: far above every published encoder (BERT-large: 24 layers, 1024 hidden;
 * XLM-R: 250k vocabulary; ModernBERT: 8192 positions), low enough that nothing is allocated for a corrupt or
 * hostile config.json. The parameter count (tied decoder counted once) must stay under `parameters`.
 */
export const CONFIG_LIMITS = {
  vocabSize: 2 ** 21,
  hidden: 2 ** 15,
  layers: 512,
  heads: 1024,
  intermediate: 2 ** 17,
  maxPositions: 2 ** 20,
  typeVocabSize: 2 ** 16,
  parameters: 2 ** 31,
} as const;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export type Json = Record<string, unknown>;

/** Typed access to config fields with transformers' defaults for absent keys. */
export class Reader {
  constructor(
    private readonly json: Json,
    private readonly source: string,
  ) {}

  raw(key: string): unknown {
    return this.json[key];
  }

  fail(message: string): never {
    throw new ConfigError(`${this.source}: ${message}`);
  }

  number(key: string, fallback: number): number {
    const v = this.json[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(`"${key}" must be a number, got ${describeJsonValue(v)}`);
    return v;
  }

  /** An integer in [min, max] (sizes: checked here, before anything is allocated from them). */
  int(key: string, fallback: number, min = -Infinity, max = Infinity): number {
    const v = this.number(key, fallback);
    if (!Number.isInteger(v)) this.fail(`"${key}" must be an integer, got ${v}`);
    if (v < min || v > max) {
      this.fail(`"${key}" is ${v}, outside ${min}..${max}, the range this loader accepts; is config.json corrupt?`);
    }
    return v;
  }

  bool(key: string, fallback: boolean): boolean {
    const v = this.json[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'boolean') this.fail(`"${key}" must be true or false, got ${describeJsonValue(v)}`);
    return v;
  }

  string(key: string, fallback: string): string {
    const v = this.json[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'string') this.fail(`"${key}" must be a string, got ${describeJsonValue(v)}`);
    return v;
  }
}

/** Fields only some families set, with their defaults in parseModelConfig. */
export type FamilyExtras = 'embeddingPaddingIdx' | 'embeddingSize' | 'layerWeights' | 'activation' | 'albert';

/**
 * What a family's parser gives; embeddingPaddingIdx defaults to padTokenId, embeddingSize to the hidden size,
 * layerWeights to one set per layer, activation to the exact GELU, albert to null.
 */
export type Parsed = Omit<ModelConfig, 'architecture' | 'hfArchitecture' | 'modelType' | FamilyExtras> &
  Partial<Pick<ModelConfig, FamilyExtras>>;
/** A dropout probability of config.json: a number in [0, 1). */
export function dropoutRate(r: Reader, key: string, fallback: number): number {
  const rate = r.number(key, fallback);
  if (!(rate >= 0 && rate < 1)) r.fail(`"${key}" is ${rate}: a dropout probability must be at least 0 and below 1`);
  return rate;
}

/** Activation names transformers' ACT2FN maps to the exact erf GELU. */
export const EXACT_GELU = new Set(['gelu', 'gelu_python']);

export function requireExactGelu(r: Reader, key: string, value: string): void {
  if (!EXACT_GELU.has(value)) {
    r.fail(`${key} "${clip(value, 40)}" is not supported: only the exact erf GELU ("gelu") is implemented`);
  }
}

/** What BERT's post-norm layer with biases everywhere fixes; each family spreads it and sets what it changes. */
export const BERT_STYLE = {
  normBias: true,
  attentionBias: true,
  mlpInBias: true,
  mlpOutBias: true,
  headDenseBias: true,
  decoderBias: true,
  structure: 'post-norm',
  mlp: 'gelu',
  sinusoidalPositions: false,
  modernBert: null,
  gte: null,
} as const;

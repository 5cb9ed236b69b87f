// Parses a Hugging Face config.json into a typed ModelConfig for the six supported masked-LM families, sizes
// range-checked before anything is allocated. Semantics follow transformers' modeling_*.py and config classes.
import { Architecture, ModelConfig } from '../contract/model/model-config.ts';
import { clip } from '../io/format-error.ts';
import { parseAlbert } from './config/albert.ts';
import { parseBertLike } from './config/bert.ts';
import { CONFIG_LIMITS, ConfigError, Json, Parsed, Reader } from './config/config-reader.ts';
import { parseDistilBert } from './config/distilbert.ts';
import { parseGte } from './config/gte.ts';
import { parseModernBert } from './config/modernbert.ts';
import { parameterCount } from './layout.ts';

const SUPPORTED_ARCHITECTURES = [
  'BertForMaskedLM',
  'RobertaForMaskedLM',
  'XLMRobertaForMaskedLM',
  'DistilBertForMaskedLM',
  'ModernBertForMaskedLM',
  'NewForMaskedLM (GTE)',
  'AlbertForMaskedLM',
] as const;

interface Family {
  architecture: Architecture;
  hfArchitecture: string;
}

const FAMILIES: Record<string, Family> = {
  bert: { architecture: 'bert', hfArchitecture: 'BertForMaskedLM' },
  roberta: { architecture: 'roberta', hfArchitecture: 'RobertaForMaskedLM' },
  'xlm-roberta': { architecture: 'roberta', hfArchitecture: 'XLMRobertaForMaskedLM' },
  distilbert: { architecture: 'distilbert', hfArchitecture: 'DistilBertForMaskedLM' },
  modernbert: { architecture: 'modernbert', hfArchitecture: 'ModernBertForMaskedLM' },
  new: { architecture: 'gte', hfArchitecture: 'NewForMaskedLM' },
  albert: { architecture: 'albert', hfArchitecture: 'AlbertForMaskedLM' },
};

/** Class-name prefixes of each model_type (e.g. BertModel, BertForPreTraining are model_type "bert"). */
const CLASS_PREFIXES: [string, string][] = [
  ['XLMRoberta', 'xlm-roberta'],
  ['Roberta', 'roberta'],
  ['DistilBert', 'distilbert'],
  ['ModernBert', 'modernbert'],
  ['Bert', 'bert'],
  ['New', 'new'],
  ['Albert', 'albert'],
];

export interface ParseOptions {
  /** Where the config came from (file path or Hub id), used in errors and, like transformers' AutoConfig,
   *  to guess model_type from the name when config.json has neither model_type nor architectures (bert-tiny). */
  source?: string;
}

export function parseModelConfig(json: unknown, options: ParseOptions = {}): ModelConfig {
  const source = options.source ?? 'config.json';
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ConfigError(`${source}: expected a JSON object, got ${Array.isArray(json) ? 'an array' : typeof json}`);
  }
  const c = json as Json;
  const modelType = resolveModelType(c, source);
  const family = FAMILIES[modelType];
  const read = new Reader(c, source);
  const parsers: Record<Architecture, () => Parsed> = {
    bert: () => parseBertLike(read, 'bert'),
    roberta: () => parseBertLike(read, 'roberta'),
    distilbert: () => parseDistilBert(read),
    modernbert: () => parseModernBert(read),
    gte: () => parseGte(read),
    albert: () => parseAlbert(read),
  };
  const parsed = parsers[family.architecture]();
  const config: ModelConfig = {
    ...parsed,
    embeddingPaddingIdx: parsed.embeddingPaddingIdx ?? parsed.padTokenId,
    embeddingSize: parsed.embeddingSize ?? parsed.hidden,
    layerWeights: parsed.layerWeights ?? Array.from({ length: parsed.layers }, (_, i) => i),
    activation: parsed.activation ?? 'gelu',
    albert: parsed.albert ?? null,
    architecture: family.architecture,
    hfArchitecture: family.hfArchitecture,
    modelType,
  };
  validateShapes(config, source);
  const parameters = parameterCount(config);
  if (parameters > CONFIG_LIMITS.parameters) {
    throw new ConfigError(
      `${source}: the model would have ${(parameters / 1e9).toFixed(2)} billion parameters, more than the ${(CONFIG_LIMITS.parameters / 1e9).toFixed(2)} billion this loader accepts`,
    );
  }
  return config;
}

function resolveModelType(c: Json, source: string): string {
  const supported = `supported: ${SUPPORTED_ARCHITECTURES.join(', ')}`;
  const declared = typeof c.model_type === 'string' ? c.model_type : undefined;
  const archs = Array.isArray(c.architectures) ? c.architectures.filter((a): a is string => typeof a === 'string') : [];
  if (declared !== undefined) {
    if (!Object.hasOwn(FAMILIES, declared)) {
      const named = archs.length > 0 ? ` (architectures: ${clip(archs.join(', '))})` : '';
      throw new ConfigError(`${source}: unsupported model_type "${clip(declared, 40)}"${named}; ${supported}`);
    }
    return declared;
  }
  if (archs.length > 0) {
    const match = CLASS_PREFIXES.find(([prefix]) => archs[0].startsWith(prefix));
    if (!match) throw new ConfigError(`${source}: unsupported architecture "${clip(archs[0], 60)}"; ${supported}`);
    return match[1];
  }
  // transformers' AutoConfig falls back to the longest model_type found in the checkpoint's name.
  const name = (source.split(/[\\/]/).filter(Boolean).slice(-2).join('/') || source).toLowerCase();
  const guess = Object.keys(FAMILIES)
    .sort((a, b) => b.length - a.length)
    .find((type) => name.includes(type));
  if (!guess) {
    throw new ConfigError(
      `${source}: config.json has neither "model_type" nor "architectures", and the name does not say which model it is; ` +
        `add "model_type" (one of ${Object.keys(FAMILIES).join(', ')}); ${supported}`,
    );
  }
  return guess;
}

function validateShapes(c: ModelConfig, source: string): void {
  const positive: [string, number][] = [
    ['vocab size', c.vocabSize],
    ['hidden size', c.hidden],
    ['embedding size', c.embeddingSize],
    ['layer count', c.layers],
    ['head count', c.heads],
    ['intermediate size', c.intermediate],
    ['max positions', c.maxPositions],
  ];
  for (const [what, value] of positive) {
    if (!(value > 0)) throw new ConfigError(`${source}: ${what} must be positive, got ${value}`);
  }
  if (c.hidden % c.heads !== 0) {
    throw new ConfigError(`${source}: hidden size ${c.hidden} is not a multiple of the head count ${c.heads}`);
  }
  if (c.positions === 'rotary' && c.headDim % 2 !== 0) {
    throw new ConfigError(`${source}: rotary embeddings need an even head size, got ${c.headDim}`);
  }
  if (c.gte && !(c.gte.ropeTheta > 0)) throw new ConfigError(`${source}: rope_theta must be positive, got ${c.gte.ropeTheta}`);
  if (c.padTokenId < 0 || c.padTokenId >= c.vocabSize) {
    throw new ConfigError(`${source}: pad_token_id ${c.padTokenId} is outside the vocabulary (size ${c.vocabSize})`);
  }
  if (!(c.normEps > 0)) throw new ConfigError(`${source}: layer norm epsilon must be positive, got ${c.normEps}`);
}

// The one place that maps Hugging Face checkpoint tensor names to the internal layout (src/model/layout.ts) and back.
// Fused q/k/v are concatenated from BERT-style query/key/value; tied decoders are the word embeddings (one tensor);
// GTE's up_gate_proj rows [up; gate] are held as [gate; up], the order ModernBERT's GeGLU kernel reads.
// One file (about 420 lines) on purpose: the name tables of the six families and the mapping both ways are one
// contract, and a reader checks a family's names against its inverse in one place.
import { clip } from '../io/format-error.ts';
import { type HostTensor, type TensorMap, tensorSize } from '../io/host-tensor.ts';
import type { ModelConfig } from '../contract/model/model-config.ts';
import { type ModelParams, type ParamSpec, P, parameterLayout, type Part } from './layout.ts';

/** One internal parameter and the checkpoint tensors it is made of, concatenated along dim 0. */
interface Binding {
  spec: ParamSpec;
  /** One entry per concatenated part; each part lists accepted names, the canonical (saved) one first. */
  parts: string[][];
  /** The internal tensor is the checkpoint's with its two halves along dim 0 exchanged (GTE's gated MLP). */
  swapHalves?: boolean;
}

export interface MissingTensor {
  /** Internal parameter name. */
  param: string;
  /** Checkpoint names that were looked for (the first is the canonical one). */
  names: string[];
  shape: number[];
}

export interface ShapeMismatch {
  name: string;
  param: string;
  expected: number[];
  actual: number[];
}

export interface MappingReport {
  /** Internal parameters that were found with the right shapes. */
  params: Map<string, HostTensor>;
  missing: MissingTensor[];
  shapeMismatches: ShapeMismatch[];
  /** Checkpoint tensors nothing in the model uses, with their shapes. */
  unexpected: { name: string; shape: number[] }[];
  /** Checkpoint tensors knowingly skipped: pooler, NSP head, buffers, tied duplicates. */
  ignored: { name: string; reason: string }[];
  /** The base-model prefix the checkpoint uses ("bert.", "model.", ... or "" for a bare base model). */
  prefix: string;
}

export class WeightsError extends Error {
  constructor(
    message: string,
    readonly report: MappingReport,
  ) {
    super(message);
    this.name = 'WeightsError';
  }
}

const BASE_PREFIX: Record<ModelConfig['architecture'], string> = {
  bert: 'bert.',
  roberta: 'roberta.',
  distilbert: 'distilbert.',
  modernbert: 'model.',
  gte: 'new.',
  albert: 'albert.',
};

/** Maps a checkpoint onto the internal layout and says what is missing, misshapen, unexpected or skipped. */
export function mapHuggingFaceTensors(config: ModelConfig, tensors: TensorMap): MappingReport {
  const prefix = detectPrefix(config, tensors);
  const report: MappingReport = { params: new Map(), missing: [], shapeMismatches: [], unexpected: [], ignored: [], prefix };
  const used = new Set<string>();
  for (const binding of bindings(config, prefix)) {
    const tensor = assemble(binding, tensors, used, report);
    if (tensor) report.params.set(binding.spec.name, tensor);
  }
  const skip = ignorable(config, prefix);
  for (const [name, tensor] of tensors) {
    if (used.has(name)) continue;
    const reason = skip(name);
    if (reason) report.ignored.push({ name, reason });
    else report.unexpected.push({ name, shape: [...tensor.shape] });
  }
  return report;
}

/** What loading gives besides the parameters: checkpoint tensors nothing used, and those knowingly skipped. */
export interface LoadedParameters {
  /** Internal parameter name -> tensor. */
  params: Map<string, HostTensor>;
  /** Checkpoint tensors the model does not use, as transformers' "Some weights of the checkpoint were not used". */
  unusedTensors: string[];
  /** Known-harmless tensors skipped on purpose: tied decoder copies, position/token-type id buffers, pooler, NSP head. */
  ignoredTensors: { name: string; reason: string }[];
}

/** Lines of an error list: at most `max` entries, then how many more. */
function firstFew(lines: string[], max: number): string[] {
  return lines.length <= max ? lines : [...lines.slice(0, max), `  … and ${lines.length - max} more`];
}

const LISTED = 8;

/**
 * Maps a checkpoint onto the internal layout; a WeightsError names the first few missing or misshapen tensors when
 * the checkpoint does not cover the config. Unused and ignored checkpoint tensors come back by name.
 */
export function loadParametersReport(config: ModelConfig, tensors: TensorMap, source = 'checkpoint'): LoadedParameters {
  const report = mapHuggingFaceTensors(config, tensors);
  if (report.missing.length === 0 && report.shapeMismatches.length === 0) {
    return { params: report.params, unusedTensors: report.unexpected.map((u) => u.name), ignoredTensors: report.ignored };
  }
  const shapes = (shape: number[]) => clip(shape.join(','), 40);
  const lines = [
    ...firstFew(
      report.shapeMismatches.map(
        (m) => `  ${clip(m.name, 120)}: shape [${shapes(m.actual)}], expected [${m.expected}] (${m.param})`,
      ),
      LISTED,
    ),
    ...firstFew(
      report.missing.map(
        (m) => `  missing ${m.names[0]} [${m.shape}]` + (m.names.length > 1 ? ` (or ${m.names.slice(1).join(', ')})` : ''),
      ),
      LISTED,
    ),
    ...firstFew(
      report.unexpected.map((u) => `  unexpected ${clip(u.name, 120)} [${shapes(u.shape)}]`),
      LISTED,
    ),
  ];
  const hint = report.missing.length > 0 && report.params.size === 0 ? ` — is this a ${config.hfArchitecture} checkpoint?` : '';
  const counts = `${report.missing.length} missing, ${report.shapeMismatches.length} misshapen`;
  throw new WeightsError(
    `${source}: ${config.hfArchitecture} weights do not match the config (${counts})${hint}\n${lines.join('\n')}`,
    report,
  );
}

/** Like mapHuggingFaceTensors, but throws a WeightsError naming the first few missing or misshapen tensors. */
export function loadParameters(config: ModelConfig, tensors: TensorMap, source = 'checkpoint'): Map<string, HostTensor> {
  return loadParametersReport(config, tensors, source).params;
}

/** transformers' warning about unused checkpoint tensors, with at most `max` names; null when all were used. */
export function unusedTensorsWarning(unused: readonly string[], where: string, architecture: string, max = 10): string | null {
  if (unused.length === 0) return null;
  const names = unused.slice(0, max).map((name) => clip(name, 120));
  const more = unused.length > max ? ` … and ${unused.length - max} more` : '';
  return `Some weights of the checkpoint in ${where} were not used by ${architecture}: ${names.join(', ')}${more}`;
}

/** The inverse mapping: internal parameters to Hugging Face names (q/k/v split again; tied decoder not written). */
export function toHuggingFaceTensors(config: ModelConfig, params: Map<string, HostTensor>): TensorMap {
  const out: TensorMap = new Map();
  for (const binding of bindings(config, BASE_PREFIX[config.architecture])) {
    const stored = params.get(binding.spec.name);
    if (!stored) throw new Error(`toHuggingFaceTensors: parameter ${binding.spec.name} is missing`);
    const tensor = binding.swapHalves ? swappedHalves(stored) : stored;
    const partSize = tensor.data.length / binding.parts.length;
    const partShape = [binding.spec.shape[0] / binding.parts.length, ...binding.spec.shape.slice(1)];
    binding.parts.forEach((names, k) => {
      out.set(names[0], { shape: partShape, data: tensor.data.slice(k * partSize, (k + 1) * partSize) });
    });
  }
  return out;
}

export function toFloat64Params(params: Map<string, HostTensor>): ModelParams {
  const out: ModelParams = {};
  for (const [name, tensor] of params) out[name] = Float64Array.from(tensor.data);
  return out;
}

function assemble(binding: Binding, tensors: TensorMap, used: Set<string>, report: MappingReport): HostTensor | null {
  const { spec, parts } = binding;
  const partShape = [spec.shape[0] / parts.length, ...spec.shape.slice(1)];
  const found: HostTensor[] = [];
  for (const names of parts) {
    const name = names.find((n) => tensors.has(n));
    if (name === undefined) {
      report.missing.push({ param: spec.name, names, shape: partShape });
      continue;
    }
    names.filter((n) => tensors.has(n)).forEach((n) => used.add(n));
    const tensor = tensors.get(name)!;
    if (!sameShape(tensor.shape, partShape)) {
      report.shapeMismatches.push({ name, param: spec.name, expected: partShape, actual: [...tensor.shape] });
      continue;
    }
    found.push(tensor);
  }
  if (found.length !== parts.length) return null;
  if (binding.swapHalves) return swappedHalves({ shape: [...spec.shape], data: found[0].data });
  if (found.length === 1) return { shape: [...spec.shape], data: found[0].data };
  const data = new Float32Array(tensorSize(spec.shape));
  found.forEach((t, k) => data.set(t.data, k * t.data.length));
  return { shape: [...spec.shape], data };
}

/** The tensor with its first and second halves along dim 0 exchanged (its own inverse). */
function swappedHalves(tensor: HostTensor): HostTensor {
  const half = tensor.data.length / 2;
  const data = new Float32Array(tensor.data.length);
  data.set(tensor.data.subarray(half), 0);
  data.set(tensor.data.subarray(0, half), half);
  return { shape: [...tensor.shape], data };
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Checkpoints saved from a base model (BertModel, ModernBertModel) have no prefix, as transformers accepts. */
function detectPrefix(config: ModelConfig, tensors: TensorMap): string {
  const prefix = BASE_PREFIX[config.architecture];
  for (const name of tensors.keys()) if (name.startsWith(prefix)) return prefix;
  const bare = config.architecture === 'modernbert' ? 'embeddings.tok_embeddings.weight' : 'embeddings.word_embeddings.weight';
  return tensors.has(bare) ? '' : prefix;
}

/** Checkpoint names per internal parameter. */
function bindings(config: ModelConfig, prefix: string): Binding[] {
  const tables: Partial<Record<ModelConfig['architecture'], () => NameTable>> = {
    modernbert: () => modernBertNames(prefix),
    gte: () => gteNames(config, prefix),
    albert: () => albertNames(config, prefix),
  };
  const names = (tables[config.architecture] ?? (() => bertFamilyNames(config, prefix)))();
  return parameterLayout(config).map((spec) => {
    const parts = names(spec.name);
    if (!parts) throw new Error(`weights.ts: no checkpoint name for ${spec.name} in ${config.hfArchitecture}`);
    return { spec, parts, swapHalves: config.architecture === 'gte' && /^layers\.\d+\.mlpIn\.weight$/.test(spec.name) };
  });
}

type NameTable = (param: string) => string[][] | undefined;

/** name -> [[name]], and norms also accept TensorFlow-era gamma/beta. */
function single(name: string): string[][] {
  return [[name]];
}

function normNames(module: string, part: string): string[][] {
  return [[`${module}.${part}`, `${module}.${part === 'weight' ? 'gamma' : 'beta'}`]];
}

function bertFamilyNames(config: ModelConfig, p: string): NameTable {
  const distil = config.architecture === 'distilbert';
  const roberta = config.architecture === 'roberta';
  const layer = (i: number) => (distil ? `${p}transformer.layer.${i}.` : `${p}encoder.layer.${i}.`);
  const headPrefix = distil ? '' : roberta ? 'lm_head.' : 'cls.predictions.';
  const table = new Map<string, string[][]>();
  const linear = (param: (part: 'weight' | 'bias') => string, module: string) => {
    for (const part of ['weight', 'bias'] as const) table.set(param(part), single(`${module}.${part}`));
  };
  const norm = (param: (part: 'weight' | 'bias') => string, module: string) => {
    for (const part of ['weight', 'bias'] as const) table.set(param(part), normNames(module, part));
  };
  table.set(P.wordEmbeddings, single(`${p}embeddings.word_embeddings.weight`));
  table.set(P.positionEmbeddings, single(`${p}embeddings.position_embeddings.weight`));
  table.set(P.tokenTypeEmbeddings, single(`${p}embeddings.token_type_embeddings.weight`));
  norm(P.embeddingNorm, `${p}embeddings.LayerNorm`);
  for (let i = 0; i < config.layers; i++) {
    const at = (f: (i: number, part: 'weight' | 'bias') => string) => (part: 'weight' | 'bias') => f(i, part);
    const qkvModules = distil
      ? ['attention.q_lin', 'attention.k_lin', 'attention.v_lin']
      : ['attention.self.query', 'attention.self.key', 'attention.self.value'];
    for (const part of ['weight', 'bias'] as const)
      table.set(
        P.qkv(i, part),
        qkvModules.map((m) => [`${layer(i)}${m}.${part}`]),
      );
    linear(at(P.attnOut), `${layer(i)}${distil ? 'attention.out_lin' : 'attention.output.dense'}`);
    norm(at(P.attnOutNorm), `${layer(i)}${distil ? 'sa_layer_norm' : 'attention.output.LayerNorm'}`);
    linear(at(P.mlpIn), `${layer(i)}${distil ? 'ffn.lin1' : 'intermediate.dense'}`);
    linear(at(P.mlpOut), `${layer(i)}${distil ? 'ffn.lin2' : 'output.dense'}`);
    norm(at(P.mlpOutNorm), `${layer(i)}${distil ? 'output_layer_norm' : 'output.LayerNorm'}`);
  }
  linear(P.headDense, distil ? 'vocab_transform' : `${headPrefix}${roberta ? 'dense' : 'transform.dense'}`);
  norm(P.headNorm, distil ? 'vocab_layer_norm' : `${headPrefix}${roberta ? 'layer_norm' : 'transform.LayerNorm'}`);
  table.set(P.decoderWeight, single(distil ? 'vocab_projector.weight' : `${headPrefix}decoder.weight`));
  // BERT and RoBERTa keep the bias as `<head>.bias`, shared with `<head>.decoder.bias`; either may be saved.
  table.set(P.decoderBias, distil ? single('vocab_projector.bias') : [[`${headPrefix}bias`, `${headPrefix}decoder.bias`]]);
  return (param) => table.get(param);
}

function modernBertNames(p: string): NameTable {
  return (param) => {
    const m = /^layers\.(\d+)\.(\w+)\.(weight|bias)$/.exec(param);
    if (m) {
      const modules: Record<string, string> = {
        attnNorm: 'attn_norm',
        qkv: 'attn.Wqkv',
        attnOut: 'attn.Wo',
        mlpNorm: 'mlp_norm',
        mlpIn: 'mlp.Wi',
        mlpOut: 'mlp.Wo',
      };
      const module = modules[m[2]];
      return module ? single(`${p}layers.${m[1]}.${module}.${m[3]}`) : undefined;
    }
    const fixed: Record<string, string> = {
      [P.wordEmbeddings]: `${p}embeddings.tok_embeddings.weight`,
      [P.embeddingNorm('weight')]: `${p}embeddings.norm.weight`,
      [P.embeddingNorm('bias')]: `${p}embeddings.norm.bias`,
      [P.finalNorm('weight')]: `${p}final_norm.weight`,
      [P.finalNorm('bias')]: `${p}final_norm.bias`,
      [P.headDense('weight')]: 'head.dense.weight',
      [P.headDense('bias')]: 'head.dense.bias',
      [P.headNorm('weight')]: 'head.norm.weight',
      [P.headNorm('bias')]: 'head.norm.bias',
      [P.decoderWeight]: 'decoder.weight',
      [P.decoderBias]: 'decoder.bias',
    };
    return fixed[param] ? single(fixed[param]) : undefined;
  };
}

/** GTE (NewForMaskedLM): `new.` base model, BERT-like embeddings, qkv_proj (or q/k/v_proj), BERT-like head. */
function gteNames(config: ModelConfig, p: string): NameTable {
  const table = new Map<string, string[][]>();
  const both = (param: (part: Part) => string, module: string) => {
    for (const part of ['weight', 'bias'] as const) table.set(param(part), single(`${module}.${part}`));
  };
  table.set(P.wordEmbeddings, single(`${p}embeddings.word_embeddings.weight`));
  table.set(P.tokenTypeEmbeddings, single(`${p}embeddings.token_type_embeddings.weight`));
  both(P.embeddingNorm, `${p}embeddings.LayerNorm`);
  for (let i = 0; i < config.layers; i++) {
    const layer = `${p}encoder.layer.${i}.`;
    const at = (f: (i: number, part: Part) => string) => (part: Part) => f(i, part);
    for (const part of ['weight', 'bias'] as const) {
      const packed = config.gte?.packQkv ?? true;
      table.set(
        P.qkv(i, part),
        packed
          ? single(`${layer}attention.qkv_proj.${part}`)
          : ['q', 'k', 'v'].map((m) => [`${layer}attention.${m}_proj.${part}`]),
      );
    }
    both(at(P.attnOut), `${layer}attention.o_proj`);
    both(at(P.attnOutNorm), `${layer}attn_ln`);
    table.set(P.mlpIn(i, 'weight'), single(`${layer}mlp.up_gate_proj.weight`));
    both(at(P.mlpOut), `${layer}mlp.down_proj`);
    both(at(P.mlpOutNorm), `${layer}mlp_ln`);
  }
  both(P.headDense, 'lm_head.dense');
  both(P.headNorm, 'lm_head.norm');
  table.set(P.decoderWeight, single('lm_head.decoder.weight'));
  table.set(P.decoderBias, single('lm_head.decoder.bias'));
  return (param) => table.get(param);
}

/**
 * ALBERT (AlbertForMaskedLM): `albert.` base model; stored layer g·inner + j is albert_layer_groups.g.albert_layers.j;
 * the head is `predictions.` (dense, LayerNorm, decoder tied to the word embeddings, bias).
 */
function albertNames(config: ModelConfig, p: string): NameTable {
  const table = new Map<string, string[][]>();
  const both = (param: (part: Part) => string, module: string, gammaBeta = false) => {
    for (const part of ['weight', 'bias'] as const)
      table.set(param(part), gammaBeta ? normNames(module, part) : single(`${module}.${part}`));
  };
  table.set(P.wordEmbeddings, single(`${p}embeddings.word_embeddings.weight`));
  table.set(P.positionEmbeddings, single(`${p}embeddings.position_embeddings.weight`));
  table.set(P.tokenTypeEmbeddings, single(`${p}embeddings.token_type_embeddings.weight`));
  both(P.embeddingNorm, `${p}embeddings.LayerNorm`, true);
  both(P.embeddingProjection, `${p}encoder.embedding_hidden_mapping_in`);
  const inner = config.albert?.innerGroupNum ?? 1;
  for (const i of new Set(config.layerWeights)) {
    const layer = `${p}encoder.albert_layer_groups.${Math.floor(i / inner)}.albert_layers.${i % inner}.`;
    const at = (f: (i: number, part: Part) => string) => (part: Part) => f(i, part);
    for (const part of ['weight', 'bias'] as const)
      table.set(
        P.qkv(i, part),
        ['query', 'key', 'value'].map((m) => [`${layer}attention.${m}.${part}`]),
      );
    both(at(P.attnOut), `${layer}attention.dense`);
    both(at(P.attnOutNorm), `${layer}attention.LayerNorm`, true);
    both(at(P.mlpIn), `${layer}ffn`);
    both(at(P.mlpOut), `${layer}ffn_output`);
    both(at(P.mlpOutNorm), `${layer}full_layer_layer_norm`, true);
  }
  both(P.headDense, 'predictions.dense');
  both(P.headNorm, 'predictions.LayerNorm', true);
  table.set(P.decoderWeight, single('predictions.decoder.weight'));
  // Like BERT, the bias is `predictions.bias`, shared with `predictions.decoder.bias`; either may be saved.
  table.set(P.decoderBias, [['predictions.bias', 'predictions.decoder.bias']]);
  return (param) => table.get(param);
}

/** Tensors a checkpoint may hold that the MLM encoder does not use, and why. */
function ignorable(config: ModelConfig, prefix: string): (name: string) => string | null {
  const decoder = bertFamilyDecoderName(config);
  return (name) => {
    if (config.tieWordEmbeddings && name === decoder) return 'tied to the word embeddings';
    if (/(^|\.)embeddings\.(position_ids|token_type_ids)$/.test(name)) return 'index buffer, not a parameter';
    if (name.startsWith(`${prefix}pooler.`)) return 'pooler (next-sentence / classification), unused by the MLM head';
    if (name.startsWith('cls.seq_relationship.')) return 'next-sentence-prediction head';
    if (name.startsWith('sop_classifier.')) return 'sentence-order-prediction head';
    return null;
  };
}

function bertFamilyDecoderName(config: ModelConfig): string {
  switch (config.architecture) {
    case 'bert':
      return 'cls.predictions.decoder.weight';
    case 'roberta':
      return 'lm_head.decoder.weight';
    case 'distilbert':
      return 'vocab_projector.weight';
    case 'modernbert':
      return 'decoder.weight';
    case 'gte':
      return 'lm_head.decoder.weight';
    case 'albert':
      return 'predictions.decoder.weight';
  }
}

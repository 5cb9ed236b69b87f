// The peers bench's problem: one SPLADE training step's shapes, seeded weights, batch and hyper-parameters, built the
// same way in every process so that splade-lab and each peer start from identical numbers.
import { parseModelConfig } from '../../src/model/config.ts';
import { type ModelConfig } from '../../src/contract/model/model-config.ts';
import { P } from '../../src/model/layout.ts';
import { makeTinyCheckpoint, type TinyCheckpoint } from '../../src/model/tiny-model.ts';
import { loadParameters } from '../../src/model/weights.ts';
import { Random } from '../../src/util/random.ts';

export type PeerSetting = 'head-only' | 'tiny-encoder';
export const PEER_SETTINGS: readonly PeerSetting[] = ['head-only', 'tiny-encoder'];

/** A named array with its shape; ids are int32, everything else float32. */
export interface PeerArray {
  shape: number[];
  data: Float32Array | Int32Array;
}

export interface PeerHyper {
  tau: number;
  lambdaQueries: number;
  lambdaDocuments: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  peakLr: number;
  totalSteps: number;
}

export interface PeerDims {
  /** Triplets: B queries, B positives, B negatives (N = 2B documents). */
  B: number;
  Tq: number;
  Td: number;
  d: number;
  V: number;
  /** tiny-encoder only. */
  layers: number;
  heads: number;
  intermediate: number;
  normEps: number;
  /** Rows of the position table (tiny-encoder; absent: Td). */
  maxPositions?: number;
}

/**
 * What every system computes: `trainable` arrays are updated by AdamW (decoupled decay, bias-corrected moments);
 * `fixed` arrays are inputs. head-only: frozen hidden states (hiddenQueries, hiddenDocuments) through the decoder.
 * tiny-encoder: a BERT (post-norm, exact GELU, tied decoder) from token ids; q, k and v are separate arrays here
 * (splade-lab fuses them into one matrix; the arithmetic is the same).
 */
export interface PeerProblem {
  setting: PeerSetting;
  /** Seed of every random array (and of the tiny checkpoint). */
  seed: number;
  dims: PeerDims;
  hyper: PeerHyper;
  trainable: Record<string, PeerArray>;
  fixed: Record<string, PeerArray>;
}

const HYPER: PeerHyper = {
  tau: 1,
  lambdaQueries: 5e-2,
  lambdaDocuments: 3e-3,
  beta1: 0.9,
  beta2: 0.999,
  eps: 1e-8,
  weightDecay: 0, // the paper's (transformers' default); splade-lab would skip biases and norms when set
  peakLr: 1e-4,
  totalSteps: 1000,
};

/**
 * 'bench': the shapes, head-only at the paper's hot spot (V 30522) and a full two-layer encoder; 'small': the
 * same computation at shapes a test runs in seconds.
 */
export type PeerSize = 'bench' | 'small';
export const PEER_SIZES: readonly PeerSize[] = ['bench', 'small'];

const SHAPES: Record<PeerSize, Record<PeerSetting, PeerDims>> = {
  bench: {
    'head-only': { B: 4, Tq: 32, Td: 32, d: 64, V: 30522, layers: 0, heads: 0, intermediate: 0, normEps: 0 },
    'tiny-encoder': { B: 4, Tq: 16, Td: 32, d: 64, V: 30522, layers: 2, heads: 2, intermediate: 256, normEps: 1e-12 },
  },
  small: {
    'head-only': { B: 2, Tq: 7, Td: 9, d: 12, V: 1517, layers: 0, heads: 0, intermediate: 0, normEps: 0 },
    'tiny-encoder': { B: 2, Tq: 6, Td: 10, d: 16, V: 1517, layers: 1, heads: 2, intermediate: 40, normEps: 1e-12 },
  },
};

/** Learning rate of step t (0-based): linear decay from the peak, no warm-up, so step 1 already moves the weights. */
export function peerLearningRate(hyper: PeerHyper, t: number): number {
  return (hyper.peakLr * Math.max(0, hyper.totalSteps - t)) / hyper.totalSteps;
}

export function makePeerProblem(setting: PeerSetting, size: PeerSize = 'bench', seed = 7, maxPositions?: number): PeerProblem {
  const dims = { ...SHAPES[size][setting], ...(maxPositions ? { maxPositions } : {}) };
  return setting === 'head-only' ? headOnlyProblem(dims, seed) : tinyEncoderProblem(dims, seed);
}

/** Masks (rows, T) of ones then zeros: each row keeps between half and all of its T tokens (float32 0/1). */
function paddingMask(random: Random, rows: number, T: number): Float32Array {
  const mask = new Float32Array(rows * T);
  for (let r = 0; r < rows; r++) {
    const length = Math.ceil(T / 2) + random.int(T - Math.ceil(T / 2) + 1);
    mask.fill(1, r * T, r * T + length);
  }
  return mask;
}

function headOnlyProblem(dims: PeerDims, seed: number): PeerProblem {
  const { B, Tq, Td, d, V } = dims;
  const random = new Random(seed);
  const f32 = (shape: number[], std: number): PeerArray => ({
    shape,
    data: Float32Array.from(
      random.normals(
        shape.reduce((a, b) => a * b, 1),
        std,
      ),
    ),
  });
  return {
    setting: 'head-only',
    seed,
    dims,
    hyper: HYPER,
    // rows of norm about 1 and a negative bias, so that about a quarter of the vocabulary is active per text
    trainable: {
      weight: f32([V, d], 1 / Math.sqrt(d)),
      bias: { shape: [V], data: Float32Array.from(random.normals(V, 0.5), (b) => b - 2.5) },
    },
    fixed: {
      hiddenQueries: f32([B, Tq, d], 1),
      hiddenDocuments: f32([2 * B, Td, d], 1),
      maskQueries: { shape: [B, Tq], data: paddingMask(random, B, Tq) },
      maskDocuments: { shape: [2 * B, Td], data: paddingMask(random, 2 * B, Td) },
    },
  };
}

/** The tiny checkpoint behind the tiny-encoder setting (splade-lab loads it as it would a Hub checkpoint). */
export function tinyEncoderCheckpoint(dims: PeerDims, seed: number): { checkpoint: TinyCheckpoint; config: ModelConfig } {
  const { d, V, layers, heads, intermediate, Td } = dims;
  const maxPositions = dims.maxPositions ?? Td;
  const checkpoint = makeTinyCheckpoint('bert', {
    seed,
    vocabSize: V,
    hidden: d,
    layers,
    heads,
    intermediate,
    headNormScale: 2.5,
    maxPositions,
  });
  return { checkpoint, config: parseModelConfig(checkpoint.config) };
}

function tinyEncoderProblem(dims: PeerDims, seed: number): PeerProblem {
  const { B, Tq, Td, d, V } = dims;
  const { checkpoint, config } = tinyEncoderCheckpoint(dims, seed);
  const params = loadParameters(config, checkpoint.tensors);
  const get = (name: string): PeerArray => {
    const tensor = params.get(name);
    if (!tensor) throw new Error(`tiny checkpoint lacks ${name}`);
    return { shape: tensor.shape, data: tensor.data };
  };
  const trainable: Record<string, PeerArray> = {};
  const keep = (name: string) => (trainable[name] = get(name));
  keep(P.wordEmbeddings);
  keep(P.positionEmbeddings);
  keep(P.tokenTypeEmbeddings);
  keep(P.embeddingNorm('weight'));
  keep(P.embeddingNorm('bias'));
  for (let i = 0; i < config.layers; i++) {
    const fused = { weight: get(P.qkv(i, 'weight')), bias: get(P.qkv(i, 'bias')) };
    ['q', 'k', 'v'].forEach((part, j) => {
      trainable[`layers.${i}.${part}.weight`] = { shape: [d, d], data: fused.weight.data.slice(j * d * d, (j + 1) * d * d) };
      trainable[`layers.${i}.${part}.bias`] = { shape: [d], data: fused.bias.data.slice(j * d, (j + 1) * d) };
    });
    for (const name of [P.attnOut, P.attnOutNorm, P.mlpIn, P.mlpOut, P.mlpOutNorm]) {
      keep(name(i, 'weight'));
      keep(name(i, 'bias'));
    }
  }
  keep(P.headDense('weight'));
  keep(P.headDense('bias'));
  keep(P.headNorm('weight'));
  keep(P.headNorm('bias'));
  keep(P.decoderBias);
  const random = new Random(seed + 1);
  const ids = (rows: number, T: number, mask: Float32Array): PeerArray => ({
    shape: [rows, T],
    data: Int32Array.from(mask, (m) => (m ? 1000 + random.int(V - 1000) : config.padTokenId)),
  });
  const maskQueries = paddingMask(random, B, Tq);
  const maskDocuments = paddingMask(random, 2 * B, Td);
  return {
    setting: 'tiny-encoder',
    seed,
    dims: { ...dims, normEps: config.normEps },
    hyper: HYPER,
    trainable,
    fixed: {
      queryIds: ids(B, Tq, maskQueries),
      documentIds: ids(2 * B, Td, maskDocuments),
      maskQueries: { shape: [B, Tq], data: maskQueries },
      maskDocuments: { shape: [2 * B, Td], data: maskDocuments },
    },
  };
}

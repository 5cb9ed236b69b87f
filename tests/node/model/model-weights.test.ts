// Hugging Face tensor names <-> internal layout: round trips, fused q/k/v order, tied decoders, old gamma/beta
// names, bare base-model checkpoints, and reports of missing, misshapen, unexpected and ignored tensors.
import { describe, expect, it } from 'vitest';
import type { TensorMap } from '../../../src/io/host-tensor.ts';
import type { Architecture } from '../../../src/contract/model/model-config.ts';
import { parseModelConfig } from '../../../src/model/config.ts';
import { P } from '../../../src/model/layout.ts';
import { type TinyModelOptions, makeTinyCheckpoint } from '../../../src/model/tiny-model.ts';
import {
  WeightsError,
  loadParameters,
  loadParametersReport,
  mapHuggingFaceTensors,
  toHuggingFaceTensors,
  unusedTensorsWarning,
} from '../../../src/model/weights.ts';

const sizes = { seed: 9, vocabSize: 30, hidden: 8, layers: 2, heads: 2, intermediate: 12 };

function tiny(architecture: Architecture, options: Partial<TinyModelOptions> = {}) {
  const checkpoint = makeTinyCheckpoint(architecture, { ...sizes, ...options });
  return { ...checkpoint, model: parseModelConfig(checkpoint.config) };
}

function renamed(tensors: TensorMap, rename: (name: string) => string): TensorMap {
  return new Map([...tensors].map(([name, t]) => [rename(name), t]));
}

/** Checkpoint names each family must use (transformers' module paths). */
const expectedNames: Record<Architecture, { present: string[]; absent: string[] }> = {
  bert: {
    present: [
      'bert.embeddings.word_embeddings.weight',
      'bert.embeddings.token_type_embeddings.weight',
      'bert.embeddings.LayerNorm.bias',
      'bert.encoder.layer.1.attention.self.query.weight',
      'bert.encoder.layer.1.attention.self.value.bias',
      'bert.encoder.layer.0.attention.output.LayerNorm.weight',
      'bert.encoder.layer.0.intermediate.dense.weight',
      'bert.encoder.layer.0.output.dense.bias',
      'cls.predictions.transform.dense.weight',
      'cls.predictions.transform.LayerNorm.weight',
      'cls.predictions.bias',
    ],
    absent: ['cls.predictions.decoder.weight'],
  },
  roberta: {
    present: [
      'roberta.embeddings.position_embeddings.weight',
      'roberta.encoder.layer.0.attention.self.key.weight',
      'lm_head.dense.weight',
      'lm_head.layer_norm.bias',
      'lm_head.bias',
    ],
    absent: ['lm_head.decoder.weight'],
  },
  distilbert: {
    present: [
      'distilbert.embeddings.position_embeddings.weight',
      'distilbert.transformer.layer.0.attention.q_lin.weight',
      'distilbert.transformer.layer.1.attention.out_lin.bias',
      'distilbert.transformer.layer.0.sa_layer_norm.weight',
      'distilbert.transformer.layer.0.ffn.lin1.weight',
      'distilbert.transformer.layer.0.output_layer_norm.bias',
      'vocab_transform.weight',
      'vocab_layer_norm.weight',
      'vocab_projector.bias',
    ],
    absent: ['vocab_projector.weight', 'distilbert.embeddings.token_type_embeddings.weight'],
  },
  modernbert: {
    present: [
      'model.embeddings.tok_embeddings.weight',
      'model.embeddings.norm.weight',
      'model.layers.0.attn.Wqkv.weight',
      'model.layers.1.attn_norm.weight',
      'model.layers.0.mlp_norm.weight',
      'model.layers.0.mlp.Wi.weight',
      'model.layers.0.mlp.Wo.weight',
      'model.final_norm.weight',
      'head.dense.weight',
      'head.norm.weight',
      'decoder.bias',
    ],
    absent: [
      'model.layers.0.attn_norm.weight',
      'model.embeddings.norm.bias',
      'head.dense.bias',
      'model.layers.0.attn.Wqkv.bias',
      'decoder.weight',
    ],
  },
  gte: {
    present: [
      'new.embeddings.word_embeddings.weight',
      'new.embeddings.token_type_embeddings.weight',
      'new.embeddings.LayerNorm.bias',
      'new.encoder.layer.0.attention.qkv_proj.weight',
      'new.encoder.layer.1.attention.qkv_proj.bias',
      'new.encoder.layer.0.attention.o_proj.bias',
      'new.encoder.layer.0.attn_ln.weight',
      'new.encoder.layer.0.mlp.up_gate_proj.weight',
      'new.encoder.layer.0.mlp.down_proj.bias',
      'new.encoder.layer.1.mlp_ln.bias',
      'lm_head.dense.weight',
      'lm_head.norm.bias',
      'lm_head.decoder.bias',
    ],
    absent: ['lm_head.decoder.weight', 'new.embeddings.position_embeddings.weight', 'new.encoder.layer.0.mlp.up_gate_proj.bias'],
  },
  albert: {
    present: [
      'albert.embeddings.word_embeddings.weight',
      'albert.embeddings.position_embeddings.weight',
      'albert.embeddings.token_type_embeddings.weight',
      'albert.embeddings.LayerNorm.bias',
      'albert.encoder.embedding_hidden_mapping_in.weight',
      'albert.encoder.albert_layer_groups.0.albert_layers.0.attention.query.weight',
      'albert.encoder.albert_layer_groups.0.albert_layers.0.attention.dense.bias',
      'albert.encoder.albert_layer_groups.0.albert_layers.0.attention.LayerNorm.weight',
      'albert.encoder.albert_layer_groups.0.albert_layers.0.ffn.weight',
      'albert.encoder.albert_layer_groups.0.albert_layers.0.ffn_output.bias',
      'albert.encoder.albert_layer_groups.0.albert_layers.0.full_layer_layer_norm.weight',
      'predictions.dense.weight',
      'predictions.LayerNorm.bias',
      'predictions.bias',
    ],
    // two layer applications, one shared layer
    absent: [
      'predictions.decoder.weight',
      'albert.encoder.albert_layer_groups.1.albert_layers.0.ffn.weight',
      'albert.encoder.albert_layer_groups.0.albert_layers.1.ffn.weight',
    ],
  },
};

describe.each(['bert', 'roberta', 'distilbert', 'modernbert', 'gte', 'albert'] as const)(
  '%s checkpoint names',
  (architecture) => {
    const { tensors, model } = tiny(architecture);

    it('uses transformers module paths', () => {
      const names = [...tensors.keys()];
      for (const name of expectedNames[architecture].present) expect(names).toContain(name);
      for (const name of expectedNames[architecture].absent) expect(names).not.toContain(name);
    });

    it('loads with nothing missing, unexpected or ignored, and saves back bit-exactly', () => {
      const report = mapHuggingFaceTensors(model, tensors);
      expect([report.missing, report.shapeMismatches, report.unexpected, report.ignored]).toEqual([[], [], [], []]);
      const saved = toHuggingFaceTensors(model, report.params);
      expect([...saved.keys()].sort()).toEqual([...tensors.keys()].sort());
      for (const [name, t] of tensors) {
        expect(saved.get(name)!.shape, name).toEqual(t.shape);
        expect(Buffer.from(saved.get(name)!.data.buffer).equals(Buffer.from(t.data.buffer)), name).toBe(true);
      }
    });

    it('reports a missing tensor and a wrong shape by name and shape', () => {
      const [first, second] = [...tensors.keys()];
      const broken = new Map(tensors);
      broken.delete(first);
      broken.set(second, { shape: [3], data: new Float32Array(3) });
      expect(() => loadParameters(model, broken, 'ckpt/model.safetensors')).toThrow(WeightsError);
      try {
        loadParameters(model, broken, 'ckpt/model.safetensors');
      } catch (e) {
        const message = (e as Error).message;
        expect(message).toContain('ckpt/model.safetensors');
        expect(message).toContain(`missing ${first} [${tensors.get(first)!.shape}]`);
        expect(message).toContain(`${second}: shape [3], expected [${tensors.get(second)!.shape}]`);
      }
    });
  },
);

describe('fused q/k/v', () => {
  it('stacks query, key and value rows in that order (ModernBERT Wqkv layout)', () => {
    const { tensors, model } = tiny('bert');
    const qkv = loadParameters(model, tensors).get(P.qkv(1, 'weight'))!;
    const d = model.hidden;
    expect(qkv.shape).toEqual([3 * d, d]);
    ['query', 'key', 'value'].forEach((part, k) => {
      const source = tensors.get(`bert.encoder.layer.1.attention.self.${part}.weight`)!.data;
      expect([...qkv.data.slice(k * d * d, (k + 1) * d * d)]).toEqual([...source]);
    });
  });
});

describe('tied and untied decoders', () => {
  it('a tied checkpoint that also saves the decoder matrix: the copy is ignored, the embeddings are the one parameter', () => {
    const { tensors, model } = tiny('roberta');
    const withCopy = new Map(tensors).set('lm_head.decoder.weight', tensors.get('roberta.embeddings.word_embeddings.weight')!);
    const report = mapHuggingFaceTensors(model, withCopy);
    expect(report.ignored).toEqual([{ name: 'lm_head.decoder.weight', reason: 'tied to the word embeddings' }]);
    expect(report.params.has(P.decoderWeight)).toBe(false);
  });

  it('an untied checkpoint must carry its decoder matrix', () => {
    const { tensors, model } = tiny('distilbert', { tieWordEmbeddings: false });
    expect(tensors.get('vocab_projector.weight')!.shape).toEqual([sizes.vocabSize, sizes.hidden]);
    const without = new Map(tensors);
    without.delete('vocab_projector.weight');
    expect(mapHuggingFaceTensors(model, without).missing).toEqual([
      { param: P.decoderWeight, names: ['vocab_projector.weight'], shape: [sizes.vocabSize, sizes.hidden] },
    ]);
  });

  it('BERT accepts the decoder bias saved as cls.predictions.decoder.bias', () => {
    const { tensors, model } = tiny('bert');
    const moved = renamed(tensors, (n) => (n === 'cls.predictions.bias' ? 'cls.predictions.decoder.bias' : n));
    expect(loadParameters(model, moved).get(P.decoderBias)!.data).toEqual(tensors.get('cls.predictions.bias')!.data);
  });

  it('headNormScale sets the mean row norm of the decoder matrix (the word embeddings when tied)', () => {
    const { tensors } = tiny('modernbert', { headNormScale: 2.5 });
    const { data } = tensors.get('model.embeddings.tok_embeddings.weight')!;
    let total = 0;
    for (let r = 0; r < sizes.vocabSize; r++) total += Math.hypot(...data.slice(r * sizes.hidden, (r + 1) * sizes.hidden));
    expect(total / sizes.vocabSize).toBeCloseTo(2.5, 5);
  });
});

describe('older and partial checkpoints', () => {
  it('accepts TensorFlow-era LayerNorm.gamma / LayerNorm.beta', () => {
    const { tensors, model } = tiny('bert');
    const old = renamed(tensors, (n) =>
      n.replace(/LayerNorm\.weight$/, 'LayerNorm.gamma').replace(/LayerNorm\.bias$/, 'LayerNorm.beta'),
    );
    expect([...old.keys()].some((n) => n.endsWith('.gamma'))).toBe(true);
    expect(mapHuggingFaceTensors(model, old).missing).toEqual([]);
  });

  it('ignores pooler, next-sentence head and position-id buffers; lists anything else as unexpected with its shape', () => {
    const { tensors, model } = tiny('bert');
    const extra = new Map(tensors)
      .set('bert.pooler.dense.weight', { shape: [8, 8], data: new Float32Array(64) })
      .set('cls.seq_relationship.bias', { shape: [2], data: new Float32Array(2) })
      .set('bert.embeddings.position_ids', { shape: [1, 64], data: new Float32Array(64) })
      .set('classifier.weight', { shape: [3, 8], data: new Float32Array(24) });
    const report = mapHuggingFaceTensors(model, extra);
    expect(report.ignored.map((i) => i.name).sort()).toEqual([
      'bert.embeddings.position_ids',
      'bert.pooler.dense.weight',
      'cls.seq_relationship.bias',
    ]);
    expect(report.unexpected).toEqual([{ name: 'classifier.weight', shape: [3, 8] }]);
  });

  it('a bare base-model checkpoint (no "bert." prefix) maps the encoder and reports the missing MLM head', () => {
    const { tensors, model } = tiny('bert');
    const bare = new Map([...renamed(tensors, (n) => n.replace(/^bert\./, ''))].filter(([n]) => !n.startsWith('cls.')));
    const report = mapHuggingFaceTensors(model, bare);
    expect(report.prefix).toBe('');
    expect(report.params.has(P.qkv(0, 'weight'))).toBe(true);
    expect(report.missing.map((m) => m.names[0]).sort()).toEqual([
      'cls.predictions.bias',
      'cls.predictions.transform.LayerNorm.bias',
      'cls.predictions.transform.LayerNorm.weight',
      'cls.predictions.transform.dense.bias',
      'cls.predictions.transform.dense.weight',
    ]);
  });

  it('a checkpoint of another family fails with a hint', () => {
    const { model } = tiny('bert');
    expect(() => loadParameters(model, tiny('modernbert').tensors)).toThrow(/is this a BertForMaskedLM checkpoint\?/);
  });
});

describe('unused and missing checkpoint tensors (transformers: "Some weights of the checkpoint were not used")', () => {
  it('returns unused tensors by name, and the known-harmless ones separately with their reason', () => {
    const { tensors, model } = tiny('bert');
    const extra = new Map(tensors)
      .set('bert.pooler.dense.weight', { shape: [8, 8], data: new Float32Array(64) })
      .set('bert.embeddings.position_ids', { shape: [1, 64], data: new Float32Array(64) })
      .set('classifier.weight', { shape: [3, 8], data: new Float32Array(24) })
      .set('bert.encoder.layer.0.attention.self.query_typo.weight', { shape: [8, 8], data: new Float32Array(64) });
    const { unusedTensors, ignoredTensors, params } = loadParametersReport(model, extra, 'ckpt');
    expect(params.size).toBeGreaterThan(0);
    expect(unusedTensors).toEqual(['classifier.weight', 'bert.encoder.layer.0.attention.self.query_typo.weight']);
    expect(ignoredTensors.map((t) => t.name).sort()).toEqual(['bert.embeddings.position_ids', 'bert.pooler.dense.weight']);
    expect(unusedTensorsWarning(unusedTensors, 'ckpt', 'BertForMaskedLM', 1)).toBe(
      'Some weights of the checkpoint in ckpt were not used by BertForMaskedLM: classifier.weight … and 1 more',
    );
    expect(unusedTensorsWarning([], 'ckpt', 'BertForMaskedLM')).toBeNull();
  });

  it('a checkpoint that does not cover the config is an error naming the first few missing tensors, briefly', () => {
    const model = parseModelConfig({
      model_type: 'bert',
      vocab_size: 30,
      hidden_size: 8,
      num_attention_heads: 2,
      intermediate_size: 8,
      num_hidden_layers: 300,
      max_position_embeddings: 64,
    });
    const { tensors } = tiny('bert');
    const error = (() => {
      try {
        loadParameters(model, new Map([...tensors].filter(([name]) => !name.includes('.layer.'))), 'ckpt');
      } catch (e) {
        return e as Error;
      }
      throw new Error('expected a WeightsError');
    })();
    expect(error).toBeInstanceOf(WeightsError);
    expect(error.message).toMatch(/^ckpt: BertForMaskedLM weights do not match the config \(4800 missing, 0 misshapen\)\n/);
    expect(error.message).toContain('  missing bert.encoder.layer.0.attention.self.query.weight [8,8]');
    expect(error.message).toContain('  … and 4792 more');
    expect(error.message.length).toBeLessThan(1000);
  });
});

// BertForSequenceClassification and ModernBertForSequenceClassification (cross-encoder teachers): GPU logits against
// the float64 reference on seeded tiny checkpoints (odd lengths, padding, one and two labels, ModernBERT's cls and mean
// pooling), the config fields read, and bad checkpoints refused.
import { describe, expect, it } from 'vitest';
import { GpuClassifierModel, GpuClassifierPass } from '../../../src/model/gpu-classifier.ts';
import { loadClassifier, type LoadedClassifier } from '../../../src/model/load-classifier.ts';
import { classifierForward } from '../../../src/model/reference/classifier.ts';
import type { EncoderInput } from '../../../src/model/reference/encoder.ts';
import { toFloat64Params } from '../../../src/model/weights.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { referenceHead, tinyCrossEncoderSource, type TinyCrossEncoderOptions } from '../../helpers/tiny-cross-encoder.ts';
import { encoderBatch } from '../../helpers/tiny-encoder-model.ts';

/** fp32 GPU logits against float64: at most this relative error, |gpu - ref| / |ref|. */
const LOGIT_RTOL = 1e-5;

async function gpuLogits(loaded: LoadedClassifier, input: EncoderInput): Promise<Float32Array> {
  const ctx = await gpuContext();
  const pass = new GpuClassifierPass(new GpuClassifierModel(ctx, loaded), input.B, input.T);
  return pass.run(input.ids, input.mask, input.tokenTypes);
}

/**
 * Worst |actual - expected| / max(|expected|, a tenth of the largest |expected|): each logit against itself, but a logit
 * near zero (0.026 beside 1.7, say) against a tenth of the batch's scale, where fp32 rounding of the whole sum shows.
 */
function maxRelativeError(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  let scale = 0;
  for (let i = 0; i < expected.length; i++) scale = Math.max(scale, Math.abs(expected[i]));
  let worst = 0;
  for (let i = 0; i < expected.length; i++)
    worst = Math.max(worst, Math.abs(actual[i] - expected[i]) / Math.max(Math.abs(expected[i]), 0.1 * scale));
  return worst;
}

interface Case {
  name: string;
  options: TinyCrossEncoderOptions;
  numLabels: number;
  T: number;
  lengths: number[];
}

const cases: Case[] = [
  {
    name: 'one label (id2label), T=7, lengths 7, 4, 1',
    options: { labels: { id2label: { 0: 'LABEL_0' } } },
    numLabels: 1,
    T: 7,
    lengths: [7, 4, 1],
  },
  { name: 'two labels (default), T=5, lengths 2, 5', options: { seed: 31 }, numLabels: 2, T: 5, lengths: [2, 5] },
  {
    name: 'two labels (num_labels), d=24, T=9, one sequence of 6',
    options: { seed: 41, hidden: 24, labels: { num_labels: 2 } },
    numLabels: 2,
    T: 9,
    lengths: [6],
  },
  {
    name: 'ModernBERT, cls pooling (default), one label, T=7, lengths 7, 3',
    options: { family: 'modernbert', labels: { num_labels: 1 } },
    numLabels: 1,
    T: 7,
    lengths: [7, 3],
  },
  {
    name: 'ModernBERT, mean pooling, two labels, T=9, lengths 2, 9, 5',
    options: { family: 'modernbert', pooling: 'mean', seed: 51 },
    numLabels: 2,
    T: 9,
    lengths: [2, 9, 5],
  },
];

describe('sequence classifiers on the GPU', () => {
  it.each(cases)(
    '$name: logits equal the float64 reference to 1e-5 relative',
    async ({ name, options, numLabels, T, lengths }) => {
      const loaded = await loadClassifier(tinyCrossEncoderSource(options));
      expect(loaded.classifier.numLabels).toBe(numLabels);
      const input = encoderBatch(loaded.config, T * 13 + lengths.length, { T, lengths, tokenTypes: true });
      const reference = classifierForward(loaded.config, toFloat64Params(loaded.params), referenceHead(loaded), input).logits;
      const logits = await gpuLogits(loaded, input);
      expect(logits).toHaveLength(lengths.length * numLabels);
      const error = maxRelativeError(logits, reference);
      console.log(`cross-encoder ${name}: max relative logit error ${error.toExponential(2)}`);
      expect(error).toBeLessThanOrEqual(LOGIT_RTOL);
    },
  );

  it.each([
    ['BERT', {}],
    ['ModernBERT, mean pooling', { family: 'modernbert', pooling: 'mean' }],
  ] as [string, TinyCrossEncoderOptions][])("%s: padding does not change a pair's logits", async (_, options) => {
    const loaded = await loadClassifier(tinyCrossEncoderSource({ seed: 31, ...options }));
    const padded = encoderBatch(loaded.config, 5, { T: 8, lengths: [5, 8], tokenTypes: true });
    const alone: EncoderInput = {
      B: 1,
      T: 5,
      ids: padded.ids.slice(0, 5),
      mask: Array.from(padded.mask).slice(0, 5),
      tokenTypes: padded.tokenTypes?.slice(0, 5),
    };
    const [both, one] = [await gpuLogits(loaded, padded), await gpuLogits(loaded, alone)];
    for (let j = 0; j < 2; j++) expect(Math.abs(both[j] - one[j])).toBeLessThanOrEqual(1e-5 * Math.abs(one[j]) + 1e-6);
  });
});

describe('cross-encoder config and checkpoint', () => {
  it('reads id2label, num_labels, classifier_dropout and the sentence-transformers activation', async () => {
    const named = await loadClassifier(
      tinyCrossEncoderSource({
        labels: { id2label: { 1: 'relevant', 0: 'irrelevant' }, num_labels: 3 },
        extraConfig: { classifier_dropout: 0.25 },
        extraFiles: { 'config_sentence_transformers.json': { activation_fn: 'torch.nn.modules.activation.Sigmoid' } },
      }),
    );
    expect(named.classifier).toMatchObject({ numLabels: 2, labels: ['irrelevant', 'relevant'], labelsFrom: 'id2label' });
    expect(named.classifier.classifierDropout).toBe(0.25);
    expect(named.notes.join()).toMatch(/num_labels 3 disagrees with the 2 labels of id2label/);
    expect(named.activation).toEqual({
      name: 'torch.nn.modules.activation.Sigmoid',
      from: 'config_sentence_transformers.json activation_fn',
    });
    const counted = await loadClassifier(
      tinyCrossEncoderSource({
        labels: { num_labels: 1 },
        extraConfig: { sbert_ce_default_activation_function: 'torch.nn.modules.linear.Identity' },
      }),
    );
    expect(counted.classifier).toMatchObject({ numLabels: 1, labels: ['LABEL_0'], labelsFrom: 'num_labels' });
    expect(counted.classifier.classifierDropout).toBeNull();
    expect(counted.activation?.from).toBe('config.json sbert_ce_default_activation_function');
    const plain = await loadClassifier(tinyCrossEncoderSource());
    expect(plain.classifier).toMatchObject({ numLabels: 2, labelsFrom: 'default' });
    expect(plain.activation).toBeNull();
    expect(plain.unusedTensors).toEqual([]);
  });

  it.each([
    [{ drop: ['classifier.weight'] }, /needs classifier\.weight \[1,16\] \(the classifier, 1 label\).*lacks/s],
    [{ drop: ['bert.pooler.dense.bias'] }, /needs bert\.pooler\.dense\.bias \[16\] \(the pooler\)/],
    [{ drop: ['bert.encoder.layer.1.output.dense.weight'] }, /missing bert\.encoder\.layer\.1\.output\.dense\.weight/],
    [{ classifierRows: 3 }, /classifier\.weight has shape \[3,16\], expected \[1,16\]/],
    [
      { architectures: ['BertForMaskedLM'] },
      /architectures BertForMaskedLM; a cross-encoder teacher must be one of BertForSequenceClassification/,
    ],
    [
      { architectures: ['RobertaForSequenceClassification'] },
      /architectures RobertaForSequenceClassification; a cross-encoder teacher must be one of BertForSequenceClassification, ModernBertForSequenceClassification/,
    ],
    [
      { architectures: ['ModernBertForSequenceClassification'] },
      /architectures names ModernBertForSequenceClassification, but model_type is "bert"/,
    ],
    [{ family: 'modernbert', drop: ['head.norm.weight'] }, /missing head\.norm\.weight/],
    [{ family: 'modernbert', pooling: 'max' as 'mean' }, /"classifier_pooling" must be "cls" or "mean", got "max"/],
  ] as [TinyCrossEncoderOptions, RegExp][])('refuses a bad checkpoint (%o) with a clear message', async (options, message) => {
    const source = tinyCrossEncoderSource({ labels: { id2label: { 0: 'score' } }, ...options });
    await expect(loadClassifier(source)).rejects.toThrow(message);
  });

  it('refuses label fields it cannot read', async () => {
    const bad = (labels: TinyCrossEncoderOptions['labels']) =>
      loadClassifier(tinyCrossEncoderSource({ labels, classifierRows: 1 }));
    await expect(bad({ id2label: { 0: 'a', 2: 'b' } })).rejects.toThrow(/"id2label" key "2" is not one of the ids 0\.\.1/);
    await expect(bad({ num_labels: 0 })).rejects.toThrow(/"num_labels" must be an integer in 1\.\.1024, got 0/);
  });
});

// The lambda converter: same-definition conventions keep the value, a change of FLOPS batch is sized from measured
// vectors so that lambda x FLOPS stays the same, a distillation loss is not converted, and bad setups are refused.
import { describe, expect, it } from 'vitest';
import { convertLambdas, flopsRows, type ConventionSetup } from '../../../src/contract/experiments/lambda-conventions.ts';
import { flopsAtBatch } from '../../../src/contract/training/flops-batch.ts';

const lab = (batch: number): ConventionSetup => ({
  convention: 'splade-lab',
  batchPerDevice: batch,
  devices: 1,
  negatives: 1,
  ranking: 'contrastive',
});

describe('lambda conventions', () => {
  it('sentence-transformers (SpladeLoss over SparseMNRL, scale 1) to splade-lab at the same batch keeps the values', () => {
    const c = convertLambdas({
      from: { ...lab(16), convention: 'sentence-transformers' },
      to: lab(16),
      lambdaQueries: 5e-5,
      lambdaDocuments: 3e-5,
    });
    expect(c).toMatchObject({ lambdaQueries: 5e-5, lambdaDocuments: 3e-5, convertible: true, caveats: [] });
  });

  it('counts the rows each FLOPS term averages in each convention', () => {
    expect(flopsRows(lab(8))).toEqual({ queries: 8, documents: 16 });
    expect(
      flopsRows({ convention: 'sentence-transformers', batchPerDevice: 16, devices: 8, negatives: 3, ranking: 'contrastive' }),
    ).toEqual({ queries: 16, documents: 64 });
    // naver gathers the whole batch (DataParallel) and averages positives and negatives as two batches
    expect(
      flopsRows({ convention: 'naver-splade', batchPerDevice: 32, devices: 4, negatives: 1, ranking: 'contrastive' }),
    ).toEqual({ queries: 128, documents: 128 });
    // tevatron gathers across GPUs: the global batch, every passage of each group
    expect(flopsRows({ convention: 'tevatron', batchPerDevice: 32, devices: 2, negatives: 7, ranking: 'contrastive' })).toEqual({
      queries: 64,
      documents: 512,
    });
  });

  it('sizes a change of FLOPS batch from measured vectors, keeping lambda x FLOPS the same', () => {
    const measured = {
      queries: { flops: 40, meanSquaredNorm: 400, rows: 8 },
      documents: { flops: 90, meanSquaredNorm: 700, rows: 16 },
    };
    const from: ConventionSetup = {
      convention: 'naver-splade',
      batchPerDevice: 128,
      devices: 1,
      negatives: 1,
      ranking: 'contrastive',
    };
    const c = convertLambdas({ from, to: lab(8), lambdaQueries: 3e-4, lambdaDocuments: 1e-4, measured });
    const at = (side: 'queries' | 'documents', rows: number) =>
      flopsAtBatch(measured[side].flops, measured[side].meanSquaredNorm, measured[side].rows, rows);
    expect(c.lambdaQueries * at('queries', 8)).toBeCloseTo(3e-4 * at('queries', 128), 12);
    expect(c.lambdaDocuments * at('documents', 16)).toBeCloseTo(1e-4 * at('documents', 128), 12);
    // a small batch sees a larger FLOPS, so the same pull needs a smaller lambda
    expect(c.lambdaQueries).toBeLessThan(3e-4);
    expect(c.convertible).toBe(true);
    // without measurements the value is kept, with the direction of the change said
    const unmeasured = convertLambdas({ from, to: lab(8), lambdaQueries: 3e-4, lambdaDocuments: 1e-4 });
    expect(unmeasured.lambdaQueries).toBe(3e-4);
    expect(unmeasured.caveats.join(' ')).toContain('sparser');
  });

  it('does not convert between a distillation loss and a contrastive one, and refuses bad setups', () => {
    const c = convertLambdas({
      from: { convention: 'naver-splade', batchPerDevice: 128, devices: 1, negatives: 1, ranking: 'distillation' },
      to: lab(8),
      lambdaQueries: 0.5,
      lambdaDocuments: 0.4,
    });
    expect(c.convertible).toBe(false);
    expect(c.caveats[0]).toContain('calibrator');
    expect(() => convertLambdas({ from: lab(0), to: lab(8), lambdaQueries: 1, lambdaDocuments: 1 })).toThrow(
      'source batch per device',
    );
    expect(() => convertLambdas({ from: lab(8), to: { ...lab(8), devices: 2 }, lambdaQueries: 1, lambdaDocuments: 1 })).toThrow(
      'one device',
    );
    expect(() => convertLambdas({ from: lab(8), to: lab(8), lambdaQueries: -1, lambdaDocuments: 1 })).toThrow('lambda_q');
  });
});

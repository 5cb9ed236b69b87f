// Masked-LM loss: the float64 reference against finite differences, then the GPU kernel against the reference through
// the shared kernel helper (gradients added into what is there, bit-identical repeats, nothing allocated while running)
// on odd shapes, rows without labels, no label at all, large logits, the decoder in row parts, the dispatch budget.
import { describe, expect, it } from 'vitest';
import type { GpuContext } from '../../../src/gpu/context.ts';
import { MaskedLmLoss } from '../../../src/kernels/masked-lm-loss.ts';
import { maskedLmLossBackward, maskedLmLossForward } from '../../../src/kernels/reference/masked-lm-loss.ts';
import { describeKernelFamily, expectKernel } from '../../helpers/expect-kernel.ts';
import { checkGradients } from '../../helpers/gradcheck.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { itOnCpu } from '../../helpers/portable-run.ts';
import { type Case, inputs, maskedLmLoss, maskedLmTest, partsOf, SLOT } from './cases/masked-lm-loss.ts';

async function checkCase(ctx: GpuContext, name: string, c: Case): Promise<Record<string, Float64Array>> {
  return (await expectKernel(ctx, maskedLmTest(name, c))).gpu;
}

describeKernelFamily(maskedLmLoss);

describe('masked-LM loss', () => {
  itOnCpu('the reference gradient equals finite differences', () => {
    const x = inputs({ B: 2, T: 3, d: 4, V: 9, labelled: (b, t) => t !== b }, 3);
    checkGradients({
      inputs: { hidden: x.hidden, W: x.W, b: x.b },
      forward: ({ hidden, W, b }) => Float64Array.of(maskedLmLossForward(hidden, W, b, x.labels, x.shape)),
      backward: ({ hidden, W, b }, dout) => {
        const g = maskedLmLossBackward(hidden, W, b, x.labels, x.shape, dout[0]);
        return { hidden: g.dhidden, W: g.dweight, b: g.dbias };
      },
      wrt: ['hidden', 'W', 'b'],
    });
  });

  it('the vocabulary walked in chunks of 17 ids across two row parts (the online log-sum-exp across chunks)', async () => {
    const ctx = await gpuContext();
    const c: Case = { B: 3, T: 5, d: 6, V: 203, labelled: (b, t) => t !== b, parts: [120, 83], tuning: { chunkColumns: 17 } };
    expect(new MaskedLmLoss(ctx, { B: 3, T: 5, d: 6, V: 203, parts: partsOf(c) }, SLOT, c.tuning).chunkCount).toBe(8 + 5);
    await checkCase(ctx, 'chunked', c);
    await checkCase(ctx, 'chunked, small dispatch budget', { ...c, tuning: { chunkColumns: 17, maxDispatchFlops: 500 } });
  });

  it('rejects operands of the wrong shape, decoders in other parts and rows wider than the kernel caches', async () => {
    const ctx = await gpuContext();
    const t = (label: string, shape: number[], dtype: 'f32' | 'i32' = 'f32') => ctx.tensor(label, shape, dtype);
    const loss = new MaskedLmLoss(ctx, { B: 2, T: 3, d: 4, V: 10 }, 0);
    const args = {
      hidden: t('hidden', [2, 3, 4]),
      labels: t('labels', [2, 3], 'i32'),
      weight: t('weight', [10, 4]),
      bias: t('bias', [10]),
      losses: t('losses', [1]),
    };
    const enc = ctx.encoder('bad');
    expect(() => loss.forwardBackward(enc, { ...args, labels: t('labels', [2, 3]) })).toThrow(/labels must be \[2x3\]:i32/);
    expect(() => loss.forwardBackward(enc, { ...args, hidden: t('hidden', [2, 3, 5]) })).toThrow(/hidden must be \[2x3x4\]/);
    const parted = [
      { row0: 0, tensor: t('w0', [4, 4]) },
      { row0: 4, tensor: t('w1', [6, 4]) },
    ];
    expect(() => loss.forwardBackward(enc, { ...args, weight: parted })).toThrow(/row parts differ/);
    expect(() => loss.forwardBackward(enc, { ...args, dweight: t('dweight', [10, 4]) })).toThrow(/dweight and dbias together/);
    expect(() => new MaskedLmLoss(ctx, { B: 2, T: 3, d: 4, V: 10 }, 1).forwardBackward(enc, args)).toThrow(/no slot 1/);
    expect(() => new MaskedLmLoss(ctx, { B: 1, T: 1, d: 1025, V: 3 }, 0)).toThrow(/width 1025/);
    expect(() => new MaskedLmLoss(ctx, { B: 1, T: 1, d: 4, V: 10, parts: [{ row0: 0, rows: 4 }] }, 0)).toThrow(/expected V = 10/);
  });
});

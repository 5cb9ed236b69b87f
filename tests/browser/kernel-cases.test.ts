// The kernel case tables of the Node suites (tests/node/kernels/cases/) in headless Chromium's WebGPU: every case of a
// family through the same checkKernel (reference, repeats, memory), one test per family.
import { acquireGpuContext } from '../../src/gpu/acquire.ts';
import { checkKernel } from '../helpers/check-kernel.ts';
import { activeDims } from '../node/kernels/cases/active-dims.ts';
import { adamw } from '../node/kernels/cases/adamw.ts';
import { dropout } from '../node/kernels/cases/dropout.ts';
import { finiteCheck } from '../node/kernels/cases/finite-check.ts';
import { flopsStep } from '../node/kernels/cases/flops-step.ts';
import { gradNorm } from '../node/kernels/cases/grad-norm.ts';
import { headStats } from '../node/kernels/cases/head-stats.ts';
import type { KernelCase, KernelFamily } from '../node/kernels/cases/kernel-case.ts';
import { layerKernelsAttention } from '../node/kernels/cases/layer-kernels-attention.ts';
import { layerKernelsEmbedding } from '../node/kernels/cases/layer-kernels-embedding.ts';
import { layerKernelsLayernorm } from '../node/kernels/cases/layer-kernels-layernorm.ts';
import { losses } from '../node/kernels/cases/losses.ts';
import { maskedLmLoss } from '../node/kernels/cases/masked-lm-loss.ts';
import { matmul } from '../node/kernels/cases/matmul.ts';
import { spladeHead } from '../node/kernels/cases/splade-head.ts';
import { staticQueryTable } from '../node/kernels/cases/static-query-table.ts';
import { expect } from './expect.ts';

/** Every case table (tests/node/repository/portable-tier.test.ts checks that none is left out). */
const FAMILIES: KernelFamily[] = [
  activeDims,
  adamw,
  dropout,
  finiteCheck,
  flopsStep,
  gradNorm,
  headStats,
  layerKernelsAttention,
  layerKernelsEmbedding,
  layerKernelsLayernorm,
  losses,
  maskedLmLoss,
  matmul,
  spladeHead,
  staticQueryTable,
];

/**
 * The largest shapes, left to the Node tiers (default device and portable limits) to keep this file near 40 s in
 * Chromium on SwiftShader (52 s with every case): LayerNorm's 70000 rows and the SPLADE head's V = 70001 (3 cases).
 */
const NODE_ONLY: Record<string, (kernelCase: KernelCase) => boolean> = {
  'layer-kernels-layernorm': (kernelCase) => kernelCase.name.includes('N=70000 '),
  'splade-head': (kernelCase) => kernelCase.name.includes('V=70001 '),
};

describe('kernel case tables in Chromium', () => {
  for (const family of FAMILIES) {
    const but = NODE_ONLY[family.family] ? ' but the largest shapes' : '';
    it(`${family.family}: every case${but} matches its reference`, async () => {
      const device = await acquireGpuContext(navigator.gpu, `kernel cases ${family.family}`);
      const failures: string[] = [];
      try {
        for (const group of family.groups) {
          for (const kernelCase of group.cases) {
            if (NODE_ONLY[family.family]?.(kernelCase)) continue;
            const ctx = kernelCase.context?.(device) ?? device;
            const report = await checkKernel(ctx, kernelCase.make(ctx));
            failures.push(...report.failures);
            if (!report.failures.length)
              kernelCase.then?.(report, (value, message) => expect(value, `${kernelCase.name}: ${message ?? ''}`));
          }
        }
      } finally {
        device.destroy();
      }
      expect(failures, failures.join('\n')).toHaveLength(0);
    });
  }
});

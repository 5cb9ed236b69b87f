// Inference-free SPLADE's trainable query table: the GPU's query vectors, table gradient and query L1 equal the
// float64 reference on odd shapes (tokens in no query, a query of no token, zero and negative weights), and the
// reference gradient equals finite differences.
import { describe } from 'vitest';
import { staticTableBackward, staticTableL1, staticTableVectors } from '../../../src/kernels/reference/static-query-table.ts';
import { describeKernelFamily } from '../../helpers/expect-kernel.ts';
import { checkGradients } from '../../helpers/gradcheck.ts';
import { itOnCpu } from '../../helpers/portable-run.ts';
import { presenceOf, staticQueryTable, weightsOf } from './cases/static-query-table.ts';

describeKernelFamily(staticQueryTable);

describe('static query table', () => {
  itOnCpu('the reference gradient of <vectors, c> + lambda L1 equals finite differences', () => {
    const B = 3;
    const V = 11;
    const lambda = 0.4;
    const presence = presenceOf(B, V, 5);
    // weights away from 0, where |w| is differentiable
    const weights = Float64Array.from(weightsOf(V, 9), (w) => (Math.abs(w) < 0.1 ? 0.5 : w));
    checkGradients({
      inputs: { weights },
      forward: ({ weights: w }) =>
        Float64Array.from([...staticTableVectors(w, presence, B), lambda * staticTableL1(w, presence, B)]),
      backward: ({ weights: w }, dout) => {
        const dvectors = dout.slice(0, B * V);
        return { weights: staticTableBackward(w, presence, dvectors, B, lambda * dout[B * V]) };
      },
      wrt: ['weights'],
    });
  });
});

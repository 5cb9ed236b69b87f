// FLOPS over a whole accumulated step on the GPU: two micro-batches' means summed (addMeansInto), loaded back as the
// step's mean (loadMeans), give the loss and gradient of FLOPS over the two batches stacked, against the float64
// reference on odd sizes.
import { describeKernelFamily } from '../../helpers/expect-kernel.ts';
import { flopsStep } from './cases/flops-step.ts';

describeKernelFamily(flopsStep);

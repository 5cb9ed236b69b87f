// The global gradient norm and the update's gradient scale (averaging micro-batches, clipping by global norm) on the
// GPU against the float64 reference, on odd sizes; and SGD against its reference, with a decay-exempt parameter.
import { describeKernelFamily } from '../../helpers/expect-kernel.ts';
import { gradNorm } from './cases/grad-norm.ts';

describeKernelFamily(gradNorm);

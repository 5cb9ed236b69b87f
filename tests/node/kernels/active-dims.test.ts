// Active-dimension counts and row sums of squares on the GPU equal the reference, with rows written at an offset.
import { describeKernelFamily } from '../../helpers/expect-kernel.ts';
import { activeDims } from './cases/active-dims.ts';

describeKernelFamily(activeDims);

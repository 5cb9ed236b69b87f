// AdamW on the GPU against the float64 reference over several steps, with weight decay and a gradient scale, and a
// parameter exempt from the weight decay (a bias or LayerNorm parameter).
import { describeKernelFamily } from '../../helpers/expect-kernel.ts';
import { adamw } from './cases/adamw.ts';

describeKernelFamily(adamw);

// LayerNorm kernels (with and without bias) against the float64 reference of src/kernels/reference/layernorm.ts.
import { describeKernelFamily } from '../../helpers/expect-kernel.ts';
import { layerKernelsLayernorm } from './cases/layer-kernels-layernorm.ts';

describeKernelFamily(layerKernelsLayernorm);

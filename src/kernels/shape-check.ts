// Operand checks shared by the kernel wrappers: a wrong shape or dtype fails before anything is recorded.
import type { DType, Tensor } from '../gpu/tensor.ts';

export function expectTensor(kernel: string, role: string, tensor: Tensor, shape: readonly number[], dtype: DType = 'f32'): void {
  const same = tensor.shape.length === shape.length && tensor.shape.every((n, i) => n === shape[i]);
  if (!same || tensor.dtype !== dtype) {
    throw new Error(`${kernel}: ${role} must be [${shape.join('x')}]:${dtype}, got ${tensor}`);
  }
}

// NaN/Inf checks of host arrays, and the error that names the tensor (or loss part) holding one.

/** A model, checkpoint or run holds NaN or Inf values: the message names the tensor or loss part (and the step). */
export class NonFiniteError extends Error {
  override name = 'NonFiniteError';
}

/** Index of the first NaN or ±Inf in `values`, or -1 when all are finite. */
export function firstNonFinite(values: ArrayLike<number>): number {
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (x - x !== 0) return i; // NaN - NaN and Inf - Inf are NaN
  }
  return -1;
}

/** The first tensor of `tensors` holding NaN or Inf, with the index and value found, or null when all are finite. */
export function findNonFinite(
  tensors: Iterable<readonly [string, { data: ArrayLike<number> }]>,
): { name: string; index: number; value: number } | null {
  for (const [name, tensor] of tensors) {
    const index = firstNonFinite(tensor.data);
    if (index >= 0) return { name, index, value: tensor.data[index] };
  }
  return null;
}

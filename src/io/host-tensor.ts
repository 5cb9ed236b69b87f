// Host-side tensors as loaders produce them and savers consume them: fp32 data, a shape, keyed by checkpoint name.

export interface HostTensor {
  shape: number[];
  data: Float32Array;
}

/** Tensors keyed by their Hugging Face checkpoint name (e.g. "bert.embeddings.word_embeddings.weight"). */
export type TensorMap = Map<string, HostTensor>;

export function tensorSize(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

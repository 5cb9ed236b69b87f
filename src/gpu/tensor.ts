// A GPU buffer with a shape, element type and label: the unit every kernel reads and writes.

export type DType = 'f32' | 'u32' | 'i32';

export type TypedArrayOf<D extends DType> = D extends 'f32' ? Float32Array : D extends 'u32' ? Uint32Array : Int32Array;

let nextTensorId = 1;

export class Tensor<D extends DType = DType> {
  /** Unique id, used to key cached bind groups. */
  readonly id = nextTensorId++;
  constructor(
    readonly buffer: GPUBuffer,
    readonly shape: readonly number[],
    readonly dtype: D,
    readonly label: string,
  ) {}

  get size(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  get byteLength(): number {
    return this.size * 4;
  }

  toString(): string {
    return `${this.label}[${this.shape.join('x')}]:${this.dtype}`;
  }
}

export function typedArrayFor<D extends DType>(dtype: D, data: ArrayBuffer | number): TypedArrayOf<D> {
  const array = dtype === 'f32' ? Float32Array : dtype === 'u32' ? Uint32Array : Int32Array;
  return new array(data as ArrayBuffer) as TypedArrayOf<D>;
}

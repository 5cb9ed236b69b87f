// The array operations the peers' SPLADE step is written in, once, for TensorFlow.js and jax-js alike.
// Ownership follows jax-js: every operation consumes its array arguments; `ref` keeps an array for one more use
// (TensorFlow.js frees through tidy scopes instead, so its `ref` is the identity).

export interface ArrayOps<A> {
  ref(a: A): A;
  /** Gives up one use of `a` without computing with it. */
  drop(a: A): void;
  constant(array: { shape: number[]; data: Float32Array | Int32Array }): A;
  /** Matrix product over the last two axes, leading axes batched. */
  matmul(a: A, b: A): A;
  transpose(a: A, axes: number[]): A;
  reshape(a: A, shape: number[]): A;
  add(a: A, b: A | number): A;
  sub(a: A, b: A | number): A;
  mul(a: A, b: A | number): A;
  div(a: A, b: A | number): A;
  relu(a: A): A;
  log1p(a: A): A;
  erf(a: A): A;
  sqrt(a: A): A;
  square(a: A): A;
  /** Reductions; `keep` keeps the reduced axis with length 1. */
  max(a: A, axis: number): A;
  mean(a: A, axis: number, keep?: boolean): A;
  sum(a: A): A;
  softmax(a: A): A;
  logSoftmax(a: A): A;
  /** Rows of `table` (n, d) at `ids` (int32, any shape): (...ids, d). */
  gather(table: A, ids: A): A;
}

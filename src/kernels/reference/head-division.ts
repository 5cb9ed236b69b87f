// Float64 reference of the head division W <- W / k, and the f32 product the GPU computes for it on every device.

/** W / k, the paper's rescaling. */
export function rescaleHead(W: Float64Array, k: number): Float64Array {
  return W.map((x) => x / k);
}

/** W / k in f32 as the GPU computes it on every device: each weight times 1/k rounded to f32 once, the product rounded. */
export function rescaleHeadF32(W: ArrayLike<number>, k: number): Float32Array {
  const scale = Math.fround(1 / k);
  return Float32Array.from(W, (x) => Math.fround(Math.fround(x) * scale));
}

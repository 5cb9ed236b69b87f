// Float64-side reference of the active-dimension count (entries > 0 per row of a (rows, V) matrix) and of each row's
// sum of squares.

export function activeDimsForward(vectors: ArrayLike<number>, rows: number, V: number): Uint32Array {
  const counts = new Uint32Array(rows);
  for (let r = 0; r < rows; r++) for (let v = 0; v < V; v++) if (vectors[r * V + v] > 0) counts[r]++;
  return counts;
}

export function rowSquares(vectors: ArrayLike<number>, rows: number, V: number): Float64Array {
  const squares = new Float64Array(rows);
  for (let r = 0; r < rows; r++) for (let v = 0; v < V; v++) squares[r] += vectors[r * V + v] ** 2;
  return squares;
}

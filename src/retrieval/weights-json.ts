// JSON text of a sparse vector's named weights, built from (name, value) pairs and never through a plain object (a
// token such as `__proto__`, `constructor` or `toString` stays an ordinary key), each float32 weight written as the
// shortest decimal of its exact value, so that a float32 reader (every engine here) and a float64 one (Python's json)
// both read back exactly the weight the encoder produced.

/** The shortest decimal text that reads back as exactly the float32 `value` (as a float32 and as a double). */
export function float32Text(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`weight ${value} is not finite and cannot be written as JSON`);
  return String(Math.fround(value));
}

/** `{"name": value, ...}` in the pairs' order; `value` is written by `valueText` (float32Text unless given). */
export function weightsObjectText(
  entries: Iterable<readonly [string, number]>,
  valueText: (value: number) => string = float32Text,
): string {
  const parts: string[] = [];
  for (const [name, value] of entries) parts.push(`${JSON.stringify(name)}:${valueText(value)}`);
  return `{${parts.join(',')}}`;
}

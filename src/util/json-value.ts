// How a value read from JSON is quoted in an error message: short, and true to the file (JSON.parse reads 1e400 as
// Infinity, which JSON.stringify would print as "null").

/** `value` for a message: lists and objects summarised, strings clipped, numbers beyond float64 said as such. */
export function describeJsonValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return `a list of ${value.length} items`;
  if (typeof value === 'object' && value !== null) return 'an object';
  if (typeof value === 'number' && !Number.isFinite(value))
    return `a number beyond the range of a 64-bit float (read as ${value})`;
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= 40 ? text : `${text.slice(0, 40)}… (${text.length} characters)`;
}

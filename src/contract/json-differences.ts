// What differs between two JSON values, leaf by leaf, as lines a refusal can print ("recipe.k: checkpoint 2, now 4"):
// how a resumed run or sweep names the options that are not the ones it was made with.

/** "path: <before> a, now b" for every leaf that differs between two JSON values (`before` names the saved side). */
export function jsonDifferences(saved: unknown, now: unknown, before: string, path = '', out: string[] = []): string[] {
  const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
  if (isObject(saved) && isObject(now)) {
    for (const key of new Set([...Object.keys(saved), ...Object.keys(now)]))
      jsonDifferences(saved[key], now[key], before, path ? `${path}.${key}` : key, out);
  } else if (JSON.stringify(saved) !== JSON.stringify(now)) {
    out.push(`${path}: ${before} ${JSON.stringify(saved) ?? 'none'}, now ${JSON.stringify(now) ?? 'none'}`);
  }
  return out;
}

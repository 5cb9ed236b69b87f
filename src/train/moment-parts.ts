// Optimiser moments of a vocabulary matrix saved in one row split, restored into another: a checkpoint written where
// the matrix was held whole (or in other parts: a device with another binding limit) resumes where it is split.

/** First and second moments of one parameter. */
interface Moment {
  m: Float32Array;
  v: Float32Array;
}

/** Moments by parameter name (OptimizerState.moments). */
type Moments = ReadonlyMap<string, Moment>;

/** GpuModel's name of a row part: `<parameter>[rows <first>+<count>]`. */
const PART_NAME = /^(.*)\[rows (\d+)\+(\d+)\]$/;

interface Part {
  row0: number;
  rows: number;
}

function partOf(name: string): { base: string; part: Part | null } {
  const match = PART_NAME.exec(name);
  return match ? { base: match[1], part: { row0: Number(match[2]), rows: Number(match[3]) } } : { base: name, part: null };
}

/** The saved moments of `base`, whole (concatenating its saved parts in row order), or null when none are saved. */
function savedWhole(moments: Moments, base: string): { moment: Moment; names: string[] } | null {
  const whole = moments.get(base);
  if (whole) return { moment: whole, names: [base] };
  const parts = [...moments.keys()]
    .map((name) => ({ name, ...partOf(name) }))
    .filter((p) => p.part !== null && p.base === base)
    .sort((a, b) => a.part!.row0 - b.part!.row0);
  if (parts.length === 0) return null;
  let next = 0;
  for (const p of parts) {
    if (p.part!.row0 !== next) return null; // not one matrix: left for the caller's mismatch error
    next += p.part!.rows;
  }
  const concat = (key: 'm' | 'v') => {
    const out = new Float32Array(parts.reduce((sum, p) => sum + moments.get(p.name)![key].length, 0));
    let offset = 0;
    for (const p of parts) {
      out.set(moments.get(p.name)![key], offset);
      offset += moments.get(p.name)![key].length;
    }
    return out;
  };
  return { moment: { m: concat('m'), v: concat('v') }, names: parts.map((p) => p.name) };
}

/**
 * The saved moments renamed and re-sliced to `names` (the model's parameters now) wherever a matrix is split
 * differently; every other entry as saved. A matrix whose moments do not assemble is left alone (the caller's
 * missing/extra check names it).
 */
export function momentsForParts(moments: Moments, names: readonly string[]): Map<string, Moment> {
  const missing = names.filter((name) => !moments.has(name));
  const out = new Map(moments);
  if (missing.length === 0) return out;
  const bases = new Set(missing.map((name) => partOf(name).base));
  for (const base of bases) {
    const saved = savedWhole(moments, base);
    if (!saved) continue;
    const wanted = names.filter((name) => partOf(name).base === base);
    const parts = wanted.map((name) => ({ name, part: partOf(name).part }));
    const totalRows = parts.every((p) => p.part) ? parts.reduce((sum, p) => sum + p.part!.rows, 0) : null;
    for (const name of saved.names) out.delete(name);
    for (const { name, part } of parts) {
      if (!part || totalRows === null) {
        out.set(name, saved.moment);
        continue;
      }
      const width = saved.moment.m.length / totalRows;
      const slice = (a: Float32Array) => a.slice(part.row0 * width, (part.row0 + part.rows) * width);
      out.set(name, { m: slice(saved.moment.m), v: slice(saved.moment.v) });
    }
  }
  return out;
}

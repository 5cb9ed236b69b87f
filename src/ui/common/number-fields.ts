// The panels' numeric fields: a typed number checked against its range, and a form's fields read with the first bad
// one marked and reported at the field (the browser's own bubble).
import { describeRange, inRange, type NumberRange } from '../../worker/api.ts';

export interface NumberField<K extends string = string> {
  key: K;
  label: string;
  range: NumberRange;
}

/** What is wrong with `text` as the field's number: '' when nothing is. */
export function numberProblem(text: string, field: Omit<NumberField, 'key'>): string {
  return text.trim() !== '' && inRange(Number(text), field.range) ? '' : `${field.label} must be ${describeRange(field.range)}.`;
}

/** Marks `input` with `problem` ('' clears it); a problem is also reported at the field. */
export function markField(input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, problem: string): void {
  input.setCustomValidity(problem);
  if (problem) input.reportValidity();
}

/** The fields' numbers (each input's id is `prefix` + its key), or null after marking the first bad field. */
export function readNumberFields<K extends string>(
  root: ParentNode,
  fields: readonly NumberField<K>[],
  prefix = '',
): Record<K, number> | null {
  const values = Object.create(null) as Record<K, number>;
  for (const f of fields) {
    const input = root.querySelector<HTMLInputElement>(`#${prefix}${f.key}`)!;
    const problem = numberProblem(input.value, f);
    markField(input, problem);
    if (problem) return null;
    values[f.key] = Number(input.value);
  }
  return values;
}

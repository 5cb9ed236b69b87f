// The one error type of the checkpoint readers: says which file (and tensor) was wrong and what was wrong with it.
// Also `clip`, which keeps any value quoted in an error message short (hostile files carry megabyte-long names) and
// printable (a line break, a control or a bidirectional override in an id never reaches the message raw).
import { printable } from '../util/printable.ts';

/**
 * `text` cut to `max` characters with an ellipsis and the full length, so that quoting it never floods a message, and
 * with its control, bidirectional and line-separator characters escaped (util/printable.ts), so that a value from a
 * file can neither start a line of its own in the message (posing as another "splade-lab ...: " line) nor reorder it.
 */
export function clip(text: string, max = 80): string {
  return printable(shortened(text, max));
}

/** `text` cut to `max` characters with an ellipsis and the full length, its characters as they are (for JSON.stringify). */
export function shortened(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

export class CheckpointFormatError extends Error {
  readonly file: string;
  readonly tensor: string | undefined;

  constructor(file: string, problem: string, tensor?: string) {
    super(`${clip(file, 200)}: ${tensor !== undefined ? `tensor "${clip(tensor, 120)}": ` : ''}${problem}`);
    this.name = 'CheckpointFormatError';
    this.file = file;
    this.tensor = tensor;
  }
}

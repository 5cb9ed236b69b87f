// The one error type of the checkpoint readers: says which file (and tensor) was wrong and what was wrong with it.
// Also `clip`, which keeps any value quoted in an error message short (hostile files carry megabyte-long names).

/** `text` cut to `max` characters with an ellipsis and the full length, so that quoting it never floods a message. */
export function clip(text: string, max = 80): string {
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

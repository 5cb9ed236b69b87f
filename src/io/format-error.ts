// The one error type of the checkpoint readers: says which file (and tensor) was wrong and what was wrong with it.

export class CheckpointFormatError extends Error {
  readonly file: string;
  readonly tensor: string | undefined;

  constructor(file: string, problem: string, tensor?: string) {
    super(`${file}: ${tensor !== undefined ? `tensor "${tensor}": ` : ''}${problem}`);
    this.name = 'CheckpointFormatError';
    this.file = file;
    this.tensor = tensor;
  }
}

// The error of every Hub request that failed or was refused: names the repo, the file (or folder) and the HTTP status.
export class HubError extends Error {
  constructor(
    message: string,
    readonly repo: string,
    readonly file: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'HubError';
  }
}

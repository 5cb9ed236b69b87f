// Errors the worker itself raises; their `name` travels through comlink and tells the page how to react.

/** The model would not fit the device (a tensor over a binding limit), found before its weights are fetched. */
export class ModelTooLargeError extends Error {
  override name = 'ModelTooLargeError';
}

/** A method that needs a loaded model was called before one was loaded. */
export class NoModelError extends Error {
  override name = 'NoModelError';
  constructor() {
    super('No model is loaded yet: pick one in the model picker (the synthetic demo needs no network).');
  }
}

/** Training was asked for before a triplet file was read. */
export class NoTripletsError extends Error {
  override name = 'NoTripletsError';
  constructor() {
    super('No training triplets yet: pick or drop a TSV file with query<TAB>positive<TAB>negative on each line.');
  }
}

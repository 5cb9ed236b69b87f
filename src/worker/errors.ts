// Errors of the worker's own state (nothing loaded or read yet); their `name` travels through comlink to the page.

/** A method that needs a loaded model was called before one was loaded. */
export class NoModelError extends Error {
  override name = 'NoModelError';
  constructor() {
    super('No model is loaded yet: pick one in the model picker (the demo backbone needs no network).');
  }
}

/** Training was asked for before a triplet file was read. */
export class NoTripletsError extends Error {
  override name = 'NoTripletsError';
  constructor() {
    super('No training triplets yet: pick or drop a TSV file with query<TAB>positive<TAB>negative on each line.');
  }
}

/** The search view was asked for before an evaluation kept a set. */
export class NoEvaluationError extends Error {
  override name = 'NoEvaluationError';
  constructor() {
    super('Nothing to search yet: evaluate the loaded model on a set first (the search view uses the last evaluated set).');
  }
}

/** A lesson step was asked for before a lesson was started (or after the model or the device changed). */
export class NoLessonError extends Error {
  override name = 'NoLessonError';
  constructor() {
    super('No lesson is open: start the lesson again (loading another model or losing the GPU closes it).');
  }
}

// Errors the application layer raises; each `name` travels through comlink and tells the page how to react.

/** The model would not fit the device (a tensor over a binding limit), found before its weights are fetched. */
export class ModelTooLargeError extends Error {
  override name = 'ModelTooLargeError';
}

/** Another process or tab is writing this run: names who holds it. */
export class RunLockedError extends Error {
  override name = 'RunLockedError';
}

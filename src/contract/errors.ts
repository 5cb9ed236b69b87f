// Errors the application layer raises; each `name` travels through comlink and tells the page how to react.

/** The model would not fit the device (a tensor over a binding limit), found before its weights are fetched. */
export class ModelTooLargeError extends Error {
  override name = 'ModelTooLargeError';
}

/** Another process or tab is writing this run: names who holds it. */
export class RunLockedError extends Error {
  override name = 'RunLockedError';
}

/**
 * Whether a failure message says that a server gave no answer at all (io/hub/http-body.ts words it "network failure (…)"
 * or "no response for N s"): the page then reads it as being offline and names what works without the network.
 */
export function saysNoAnswer(message: string): boolean {
  return /: network failure \(|: no response for \d/.test(message);
}

// Worker calls answer only after the page has run every callback they made. A proxied callback's messages and the
// call's result travel on different MessagePorts, which keep no order between them: without this, the last progress
// message could land after the result and overwrite the page's "Done" (seen as a page stuck at "searching 12 of 12").

type Method = (...args: never[]) => unknown;
type Callback = (...args: unknown[]) => unknown;

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value instanceof Object && typeof (value as PromiseLike<unknown>).then === 'function';
const ignore = () => undefined;

/**
 * Runs `method` with its function arguments tracked, and settles as it did once the page has answered every call it
 * made to them (a comlink call resolves when the page has run the callback); a callback that failed neither fails nor
 * holds up the call. A call made after `method` settled (a long-lived listener such as onDeviceLost's) is delivered
 * as usual and not waited for.
 */
export function orderedCallbacks<M extends Method>(method: M): M {
  return async function (this: unknown, ...args: Parameters<M>) {
    // only the calls still unanswered, so a long job's thousands of progress messages are not all kept
    const unanswered = new Set<Promise<void>>();
    let settled = false;
    const tracked =
      (callback: Callback): Callback =>
      (...callArgs) => {
        const answer = callback(...callArgs);
        if (!settled && isThenable(answer)) {
          const answered = Promise.resolve(answer).then(ignore, ignore);
          unanswered.add(answered);
          void answered.then(() => unanswered.delete(answered));
        }
        return answer;
      };
    try {
      return await method.apply(
        this,
        args.map((arg) => (typeof arg === 'function' ? tracked(arg as Callback) : arg)) as Parameters<M>,
      );
    } finally {
      settled = true;
      await Promise.allSettled(unanswered);
    }
  } as M;
}

/** Every method of a worker API wrapped by orderedCallbacks. */
export function withOrderedCallbacks<Api extends object>(api: Api): Api {
  return Object.fromEntries(
    Object.entries(api).map(([name, member]) => [
      name,
      typeof member === 'function' ? orderedCallbacks(member as Method) : member,
    ]),
  ) as Api;
}

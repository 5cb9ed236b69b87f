// Worker calls answer only after every callback they made has reached the page. A proxied callback's messages and the
// call's result travel on different MessagePorts, which keep no order between them: without this, the last progress
// message could land after the result and overwrite the page's "Done" (seen as a page stuck at "searching 12 of 12").

type Method = (...args: never[]) => unknown;

/** Runs `method` with its function arguments tracked; settles once it has and every call it made to them has too. */
export function orderedCallbacks<M extends Method>(method: M): M {
  return async function (this: unknown, ...args: Parameters<M>) {
    // the latest call of each callback: one callback's messages share a port, so its latest answer follows the others
    const latest = new Map<number, Promise<unknown>>();
    let answered = false;
    const track = (callback: (...a: unknown[]) => unknown, index: number) => (...a: unknown[]) => {
      const result = callback(...a);
      // a comlink call resolves once the page has run the callback; one made after the answer (a long-lived
      // listener such as onDeviceLost's) is delivered as usual and not waited for
      if (!answered && result instanceof Object && typeof (result as PromiseLike<unknown>).then === 'function') {
        latest.set(index, Promise.resolve(result).catch(() => undefined));
      }
      return result;
    };
    const tracked = args.map((arg, i) => (typeof arg === 'function' ? track(arg as (...a: unknown[]) => unknown, i) : arg));
    try {
      return await method.apply(this, tracked as Parameters<M>);
    } finally {
      answered = true;
      await Promise.all(latest.values());
    }
  } as M;
}

/** Every method of a worker API wrapped by orderedCallbacks. */
export function withOrderedCallbacks<Api extends object>(api: Api): Api {
  return Object.fromEntries(Object.entries(api).map(([name, member]) => [name, typeof member === 'function' ? orderedCallbacks(member as Method) : member])) as Api;
}

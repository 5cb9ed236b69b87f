// HTTP downloads for the Hub and URL-folder sources: an idle timeout (no headers or no bytes for N seconds), a size
// cap checked against Content-Length and while streaming, progress and cancel; a request under the timeout.
import { FileTooLargeError, throwIfAborted, type ReadOptions } from '../file-source.ts';

/** Default idle timeout of downloads: no response, or no new bytes, for this long fails the read. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

/** Aborts its signal when the caller's signal aborts, or when `touch` was not called for `timeoutMs`. */
export class IdleTimer {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly unlink: () => void;
  timedOut = false;

  constructor(
    readonly timeoutMs: number,
    outer: AbortSignal | undefined,
  ) {
    const onAbort = () => this.controller.abort(outer!.reason);
    if (outer?.aborted) onAbort();
    outer?.addEventListener('abort', onAbort);
    this.unlink = () => outer?.removeEventListener('abort', onAbort);
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Restarts the countdown (on the response, and on each chunk). */
  touch(): void {
    clearTimeout(this.timer);
    if (this.controller.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new DOMException('idle timeout', 'TimeoutError'));
    }, this.timeoutMs);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.unlink();
  }
}

/** A read that settles when the chunk arrives or when the signal aborts, whichever comes first. */
function readOrAbort(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  signal: AbortSignal,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    reader.read().then(
      (result) => (signal.removeEventListener('abort', onAbort), resolve(result)),
      (error) => (signal.removeEventListener('abort', onAbort), reject(error)),
    );
  });
}

export interface TimedRequest {
  fetch: typeof fetch;
  url: string;
  headers: Record<string, string>;
  timer: IdleTimer;
  /** The caller's cancel: rethrown as it is. */
  signal?: AbortSignal;
  /** What was being done, to start the messages ("could not download config.json of org/name@main (...)"). */
  doing: string;
  /** Makes the error for a request that got no response. */
  fail(message: string): Error;
}

/**
 * Sends a GET under the timer: no response before it fires fails with "<doing>: no response for N s; check the
 * connection and try again", a network failure with "<doing>: network failure (why)". A response restarts the timer.
 */
export async function fetchUnderTimer(request: TimedRequest): Promise<Response> {
  const { timer, fail, doing } = request;
  let response: Response;
  try {
    response = await request.fetch(request.url, { headers: request.headers, signal: timer.signal });
  } catch (error) {
    throwIfAborted(request.signal);
    if (timer.timedOut) throw fail(`${doing}: no response for ${timeoutSeconds(timer)}; check the connection and try again`);
    throw fail(`${doing}: network failure (${error instanceof Error ? error.message : String(error)})`);
  }
  timer.touch();
  return response;
}

export interface BodyRead {
  file: string;
  /** Where the file is, for errors ("config.json of org/name@main (https://huggingface.co)"). */
  where: string;
  timer: IdleTimer;
  /** Makes the error for a failed or short download. */
  fail(message: string): Error;
}

/**
 * Reads a response body chunk by chunk: refuses it from Content-Length or mid-stream once past options.maxFileBytes,
 * reports progress, and fails when the timer fires (no bytes for its timeout) or the caller cancels.
 */
export async function readResponseBody(
  response: Response,
  read: BodyRead,
  options: ReadOptions | undefined,
): Promise<Uint8Array> {
  const { file, where, timer } = read;
  const lengthHeader = response.headers.get('content-length');
  const total = lengthHeader !== null && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null;
  const limit = options?.maxFileBytes;
  if (total !== null && limit !== undefined && total > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw new FileTooLargeError(where, total, limit, options?.tooLargeAdvice);
  }
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  options?.onProgress?.({ file, loaded, total });
  if (response.body) {
    const reader = response.body.getReader();
    try {
      for (;;) {
        throwIfAborted(options?.signal);
        const { done, value } = await readOrAbort(reader, timer.signal);
        if (done) break;
        timer.touch();
        loaded += value.length;
        if (limit !== undefined && loaded > limit) throw new FileTooLargeError(where, loaded, limit, options?.tooLargeAdvice);
        chunks.push(value);
        options?.onProgress?.({ file, loaded, total });
      }
    } catch (error) {
      await reader.cancel().catch(() => undefined);
      throwIfAborted(options?.signal);
      if (error instanceof FileTooLargeError) throw error;
      if (timer.timedOut)
        throw read.fail(
          `download of ${where} stalled: no bytes for ${timeoutSeconds(timer)} after ${loaded} bytes; check the connection and try again`,
        );
      throw read.fail(
        `download of ${where} failed after ${loaded} bytes: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  if (total !== null && loaded !== total) throw read.fail(`download of ${where} ended after ${loaded} of ${total} bytes`);
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

/** "30 s", "0.1 s": the timer's timeout for messages. */
export function timeoutSeconds(timer: IdleTimer): string {
  return `${timer.timeoutMs / 1000} s`;
}

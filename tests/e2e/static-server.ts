// A tiny HTTP server on 127.0.0.1 for the e2e tests: the built site under a sub-path, files a test puts at a path, and generated checkpoints in
// the Hugging Face Hub's URL layout (/hub/<org>/<repo>/resolve/<revision>/<file>), both with byte ranges; chosen repos
// stream slowly and can hold a download half-way until the test releases it, so that a cancel lands mid-download on
// a machine of any speed (same origin as the page, so no CORS is involved).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
};

export interface TestServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** Every path requested, in order (the tests check what the page fetched). */
  requests: string[];
  /** Paths whose response the client closed before all of it was sent (a download cancelled mid-stream). */
  aborted: string[];
  /** Paths whose response is waiting at its Pacing's holdAfterChunks (removed when it goes on or is dropped). */
  held: string[];
  /** Lets the downloads held by a Pacing's holdAfterChunks (now and later) run to their end. */
  releaseHeldDownloads(): void;
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Folder served under `sitePath`. */
  siteDir: string;
  /** Sub-path of the site, e.g. "/deep/sub/path/" (leading and trailing slash). */
  sitePath: string;
  /** Hub repos: "org/name" -> file name -> bytes. */
  hubRepos: Map<string, Map<string, Uint8Array>>;
  /** Hub repos whose files are sent `chunkBytes` at a time with `chunkDelayMs` between chunks. */
  slowRepos?: Map<string, Pacing>;
  /** Any other path -> bytes, read at each request (a test may add files while the server runs). */
  files?: Map<string, Uint8Array>;
}

export interface Pacing {
  chunkBytes: number;
  chunkDelayMs: number;
  /** After this many chunks the response waits until releaseHeldDownloads() (or until the client drops it). */
  holdAfterChunks?: number;
}

export async function startTestServer(options: ServerOptions): Promise<TestServer> {
  const requests: string[] = [];
  const aborted: string[] = [];
  const held: string[] = [];
  let releaseHeldDownloads = () => {};
  const released = new Promise<void>((resolve) => (releaseHeldDownloads = resolve));
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    requests.push(path);
    response.on('close', () => {
      if (!response.writableFinished) aborted.push(path);
    });
    handle(path, request, response, options, { released, held }).catch((error) => {
      response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('test server has no port');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    requests,
    aborted,
    held,
    releaseHeldDownloads,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Where paced downloads wait: the release all of them wait for, and the paths waiting now. */
interface Hold {
  released: Promise<void>;
  held: string[];
}

async function handle(
  path: string,
  request: IncomingMessage,
  response: ServerResponse,
  options: ServerOptions,
  hold: Hold,
): Promise<void> {
  const hub = /^\/hub\/((?:datasets\/)?[^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
  if (hub) {
    const repo = options.hubRepos.get(hub[1]);
    if (!repo) return void response.writeHead(404, { 'x-error-code': 'RepoNotFound' }).end('Repository not found');
    const bytes = repo.get(hub[3]);
    if (!bytes) return void response.writeHead(404, { 'x-error-code': 'EntryNotFound' }).end('Entry not found');
    const pacing = options.slowRepos?.get(hub[1]);
    return send(
      request,
      response,
      bytes,
      TYPES[extname(hub[3])] ?? 'application/octet-stream',
      pacing && { ...pacing, hold, path },
    );
  }
  const extra = options.files?.get(path);
  if (extra) return send(request, response, extra, TYPES[extname(path)] ?? 'application/octet-stream');
  if (!path.startsWith(options.sitePath)) return void response.writeHead(404).end('outside the site');
  const relative = normalize(path.slice(options.sitePath.length) || 'index.html');
  if (relative.startsWith('..')) return void response.writeHead(403).end();
  let file = join(options.siteDir, relative);
  if ((await stat(file).catch(() => null))?.isDirectory()) file = join(file, 'index.html');
  const bytes = await readFile(file).catch(() => null);
  if (!bytes) return void response.writeHead(404).end('not found');
  return send(request, response, new Uint8Array(bytes), TYPES[extname(file)] ?? 'application/octet-stream');
}

/** Sends the bytes, or the part a "Range: bytes=a-b" header asks for (206 with Content-Range), paced if asked. */
type HeldPacing = Pacing & { hold: Hold; path: string };

async function send(
  request: IncomingMessage,
  response: ServerResponse,
  bytes: Uint8Array,
  type: string,
  pacing?: HeldPacing,
): Promise<void> {
  const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
  if (!range) {
    response.writeHead(200, { 'content-type': type, 'content-length': bytes.length, 'accept-ranges': 'bytes' });
    return writeBody(response, bytes, pacing);
  }
  const start = Number(range[1]);
  const end = Math.min(range[2] ? Number(range[2]) : bytes.length - 1, bytes.length - 1);
  if (start >= bytes.length) return void response.writeHead(416, { 'content-range': `bytes */${bytes.length}` }).end();
  const part = bytes.subarray(start, end + 1);
  response.writeHead(206, {
    'content-type': type,
    'content-length': part.length,
    'content-range': `bytes ${start}-${end}/${bytes.length}`,
  });
  return writeBody(response, part, pacing);
}

async function writeBody(response: ServerResponse, body: Uint8Array, pacing: HeldPacing | undefined): Promise<void> {
  if (!pacing) return void response.end(body);
  const dropped = new Promise<void>((resolve) => response.once('close', () => resolve()));
  for (let at = 0, chunk = 0; at < body.length; at += pacing.chunkBytes, chunk++) {
    if (chunk === pacing.holdAfterChunks) {
      pacing.hold.held.push(pacing.path);
      await Promise.race([pacing.hold.released, dropped]);
      pacing.hold.held.splice(pacing.hold.held.indexOf(pacing.path), 1);
    }
    if (at > 0) await new Promise((resolve) => setTimeout(resolve, pacing.chunkDelayMs));
    if (response.destroyed) return;
    response.write(body.subarray(at, at + pacing.chunkBytes));
  }
  response.end();
}

// A local stand-in for the Hugging Face Hub on 127.0.0.1: serves <root>/<org>/<repo>/<file> at
// /<org>/<repo>/resolve/main/<file> (dataset repos under <root>/datasets/ at /datasets/...), with Range support, the
// Hub's 404/401 error codes, optional slow streaming, a stall before the headers and bodies without Content-Length;
// the tree API of dataset repos (/api/datasets/<org>/<name>/tree/main/<folder>: the folder's entries); and, by path,
// the answers of a hostile or broken server (a forged listing, no answer, a body that stalls or never ends).
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import type { AddressInfo } from 'node:net';

export interface HubServer {
  baseUrl: string;
  /** Paths requested so far (with " range=..." when a Range header was sent). */
  requests: string[];
  close(): Promise<void>;
}

export interface HubServerOptions {
  /** Stream bodies in chunks of this many bytes with a pause between them (tests cancel mid-download). */
  chunkBytes?: number;
  chunkDelayMs?: number;
  /** Repos ("org/name") that answer 401 unless this token is sent. */
  gated?: Map<string, string>;
  /** Wait this long before sending the response headers (a server that accepts but does not answer). */
  headerDelayMs?: number;
  /** Send bodies chunked, without Content-Length (the size is only known while streaming). */
  omitContentLength?: boolean;
  /** What to answer instead of the real file or listing at a request path (decoded, without the query). */
  hostile?: (path: string) => HostileAnswer | undefined;
}

/**
 * A forged tree listing (any JSON), no answer at all, headers and 1 KiB then nothing, or a body without
 * Content-Length that never ends (it stops at ENDLESS_SAFETY_BYTES, so that a client without a cap fails instead of
 * filling the test process's memory).
 */
export type HostileAnswer = { listing: unknown } | 'no-answer' | 'stalled-body' | 'endless-body';

export const ENDLESS_SAFETY_BYTES = 32 * 2 ** 20;

async function misbehave(res: ServerResponse, answer: HostileAnswer): Promise<void> {
  if (answer === 'no-answer') return; // left open: the client gives up, or close() ends it
  if (typeof answer === 'object') {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer.listing));
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  res.write(chunk.subarray(0, 1024));
  if (answer === 'stalled-body') return;
  const closed = once(res, 'close');
  for (let sent = 1024; sent < ENDLESS_SAFETY_BYTES && !res.destroyed; sent += chunk.length) {
    if (!res.write(chunk)) await Promise.race([once(res, 'drain'), closed]);
  }
  res.end();
}

async function isDir(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

async function sendBody(res: ServerResponse, body: Uint8Array, options: HubServerOptions): Promise<void> {
  const chunk = options.chunkBytes ?? body.length;
  for (let at = 0; at < body.length; at += chunk) {
    if (res.destroyed) return;
    res.write(body.subarray(at, at + chunk));
    if (options.chunkDelayMs) await new Promise((r) => setTimeout(r, options.chunkDelayMs));
  }
  res.end();
}

/** The Hub's tree listing of one folder of a repo: [{ type: 'file' | 'directory', path, size }], 404 when absent. */
async function listFolder(res: ServerResponse, repoRoot: string, folder: string): Promise<void> {
  if (normalize(folder).startsWith('..') || !(await isDir(join(repoRoot, folder)))) {
    res.writeHead(404, { 'X-Error-Code': 'EntryNotFound' }).end('EntryNotFound');
    return;
  }
  const entries = await readdir(join(repoRoot, folder), { withFileTypes: true });
  const listed = await Promise.all(
    entries.map(async (e) => {
      const path = folder ? `${folder}/${e.name}` : e.name;
      return e.isDirectory()
        ? { type: 'directory', path }
        : { type: 'file', path, size: (await stat(join(repoRoot, path))).size };
    }),
  );
  res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(listed));
}

export async function startHubServer(root: string, options: HubServerOptions = {}): Promise<HubServer> {
  const requests: string[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(url + (req.headers.range ? ` range=${req.headers.range}` : ''));
    const hostile = options.hostile?.(url);
    if (hostile) return misbehave(res, hostile);
    const tree = /^\/api\/datasets\/([^/]+\/[^/]+)\/tree\/main\/?(.*)$/.exec(url);
    if (tree) return listFolder(res, join(root, 'datasets', tree[1]), tree[2]);
    const match = /^\/((?:datasets\/)?[^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(url);
    const fail = (status: number, code: string) => {
      res.writeHead(status, { 'X-Error-Code': code }).end(code);
    };
    if (!match || normalize(match[2]).startsWith('..')) return fail(404, 'EntryNotFound');
    const [, repo, file] = match;
    if (options.headerDelayMs) await new Promise((r) => setTimeout(r, options.headerDelayMs));
    if (res.destroyed) return;
    if (!(await isDir(join(root, repo)))) return fail(401, 'RepoNotFound');
    const token = options.gated?.get(repo);
    if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) return fail(401, 'GatedRepo');
    let body: Uint8Array;
    try {
      body = new Uint8Array(await readFile(join(root, repo, file)));
    } catch {
      return fail(404, 'EntryNotFound');
    }
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      if (start >= body.length) {
        res.writeHead(416, { 'Content-Range': `bytes */${body.length}` }).end();
        return;
      }
      const end = Math.min(Number(range[2]), body.length - 1);
      res.writeHead(206, { 'Content-Length': end - start + 1, 'Content-Range': `bytes ${start}-${end}/${body.length}` });
      return sendBody(res, body.subarray(start, end + 1), options);
    }
    res.writeHead(
      200,
      options.omitContentLength
        ? { 'Content-Type': 'application/octet-stream' }
        : { 'Content-Length': body.length, 'Content-Type': 'application/octet-stream' },
    );
    return sendBody(res, body, options);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

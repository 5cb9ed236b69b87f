// The Hub's URLs, built only from a checked repo id and revision and from paths that stay inside the repository:
// a file (<repo>/resolve/<revision>/<path>) and a folder listing (/api/<type>s/<repo>/tree/<revision>/<path>).
import { clip, shortened } from '../format-error.ts';
import { printable } from '../../util/printable.ts';
import { HubError } from './hub-error.ts';

/** The Hub's own rule: each part is letters, digits, "-", "_", "." (no "--" or ".."), at most 96 characters. */
const REPO_PART = /^\w(?:[\w.-]{0,94}\w)?$/;
const MAX_REPO_PART = 96;
const MAX_REVISION = 256;

/** One repository at one revision on one server. */
export interface HubRepo {
  baseUrl: string;
  /** "org/name". */
  repo: string;
  type: 'model' | 'dataset';
  revision: string;
}

export function isHubRepoId(text: string): boolean {
  const parts = text.split('/');
  return (
    parts.length <= 2 &&
    parts.every((part) => part.length <= MAX_REPO_PART && REPO_PART.test(part) && !part.includes('--') && !part.includes('..'))
  );
}

/** Why a repo id or revision cannot be requested, or null when it can (checked before any request). */
export function hubIdProblem(repo: string, revision = 'main'): string | null {
  if (!isHubRepoId(repo)) {
    return `"${clip(repo, 60)}" is not a Hub repo id: expected "org/name", each part letters, digits, "-", "_" or "." (no "--" or ".."), at most ${MAX_REPO_PART} characters`;
  }
  if (revision.length === 0 || revision.length > MAX_REVISION || /[\s\0]/.test(revision)) {
    return `"${clip(revision, 60)}" is not a revision: a branch, tag or commit of at most ${MAX_REVISION} characters without spaces`;
  }
  return null;
}

/**
 * Why `path` is not a plain relative path inside a repository ("it has a \"..\" part"), or null when it is: no
 * leading "/", no backslash or control character, no empty, "." or ".." part (a URL resolves those upwards).
 */
export function repoPathProblem(path: string): string | null {
  if (path.length === 0) return 'it is empty';
  if (path.startsWith('/')) return 'it starts with "/"';
  if (path.includes('\\')) return 'it holds a backslash';
  if (/\p{Cc}/u.test(path)) return 'it holds a control character';
  if (/\p{Cs}/u.test(path)) return 'it is not valid Unicode (a lone surrogate)';
  const parts = path.split('/');
  if (parts.includes('')) return 'it has an empty part ("//" or a "/" at the end)';
  const dots = parts.find((part) => part === '.' || part === '..');
  return dots ? `it has a "${dots}" part` : null;
}

/** A path quoted for a message: escaped (control characters, quotes) and clipped. */
export function quotePath(path: string): string {
  return printable(JSON.stringify(shortened(path, 120)));
}

export function repoPath(hub: HubRepo): string {
  return hub.type === 'dataset' ? `datasets/${hub.repo}` : hub.repo;
}

/** Throws a HubError unless the repo id and revision can be requested. */
function checkId(hub: HubRepo, path: string): void {
  const problem = hubIdProblem(hub.repo, hub.revision);
  if (problem) throw new HubError(problem, hub.repo, path, null);
}

/** Throws a HubError unless the repo id and revision can be requested and `path` stays inside the repository. */
function checkInside(hub: HubRepo, path: string): void {
  checkId(hub, path);
  const problem = repoPathProblem(path);
  if (problem)
    throw new HubError(
      `${quotePath(path)} is not a path inside ${repoPath(hub)}: ${problem}; nothing was requested`,
      hub.repo,
      path,
      null,
    );
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

function serverOf(hub: HubRepo): string {
  return hub.baseUrl.replace(/\/+$/, '');
}

/** The URL of a file of the repository (throws a HubError for a path that would leave it). */
export function hubFileUrl(hub: HubRepo, file: string): string {
  checkInside(hub, file);
  return `${serverOf(hub)}/${repoPath(hub)}/resolve/${encodeURIComponent(hub.revision)}/${encodePath(file)}`;
}

/** The tree API's URL of a folder of the repository, '' for its root (throws a HubError for a path that would leave it). */
export function hubTreeUrl(hub: HubRepo, folder: string): string {
  if (folder) checkInside(hub, folder);
  else checkId(hub, folder);
  const tree = `${serverOf(hub)}/api/${hub.type}s/${hub.repo}/tree/${encodeURIComponent(hub.revision)}`;
  return folder ? `${tree}/${encodePath(folder)}` : tree;
}

// One writer per run folder in Node: a lock file holding the writer's pid and host, created exclusively; a lock left
// by a process that no longer runs on this host is stale and taken over.
import { open, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { RunLockedError } from '../../contract/errors.ts';
import type { RunLock } from './platform.ts';
import { makeFolders } from '../../io/make-folders-node.ts';

const LOCK_FILE = '.splade-lab.lock';

interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readHolder(path: string): Promise<LockHolder | null> {
  try {
    const holder = JSON.parse(await readFile(path, 'utf8')) as Partial<LockHolder>;
    return typeof holder.pid === 'number' && typeof holder.host === 'string'
      ? { pid: holder.pid, host: holder.host, since: String(holder.since ?? '?') }
      : null;
  } catch {
    return null;
  }
}

/** Creates `dir` if needed (failing at once, with the reason, when it cannot be written) and takes its lock. */
export async function lockRunFolder(dir: string): Promise<RunLock> {
  const root = resolve(dir);
  try {
    await makeFolders(root);
  } catch (error) {
    throw new Error(`cannot create the run folder ${root}: ${(error as Error).message}`, { cause: error });
  }
  const path = join(root, LOCK_FILE);
  const me: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    let handle;
    try {
      handle = await open(path, 'wx');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST')
        throw new Error(`cannot write to the run folder ${root}: ${(error as Error).message}`, { cause: error });
      const holder = await readHolder(path);
      if (holder && holder.host === me.host && !isAlive(holder.pid)) {
        await rm(path, { force: true }); // stale: its process is gone
        continue;
      }
      const who = holder ? `process ${holder.pid} on ${holder.host} (since ${holder.since})` : 'another process';
      throw new RunLockedError(
        `${root} is being written by ${who}: one run folder takes one writer. Wait for it to finish, or train into another ` +
          `folder; if that process is gone, delete ${path}.`,
      );
    }
    try {
      await handle.writeFile(JSON.stringify(me) + '\n');
      await handle.sync();
    } finally {
      await handle.close();
    }
    return {
      async release() {
        const holder = await readHolder(path);
        if (holder && holder.pid === me.pid && holder.host === me.host) await rm(path, { force: true });
      },
    };
  }
  throw new RunLockedError(`${root}: could not take the lock ${path}`);
}

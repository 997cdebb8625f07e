import { randomHex12 } from './random-hex';
import { lstat, readlink, rmdir, symlink, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { ConcurrentUpdateError } from '../core/errors';

/**
 * How old a lock whose holder cannot be checked (another host's, or a lock folder left by an
 * earlier version) must be before another process takes it over.
 */
export const LOCK_STALE_MS = 10_000;
/** How long to wait for another writer's lock before giving up. */
export const LOCK_WAIT_MS = 30_000;
const FIRST_RETRY_DELAY_MS = 1;
const MAX_RETRY_DELAY_MS = 25;
/** A takeover guard older than this was left by a process that died while removing a dead lock. */
const TAKEOVER_STALE_MS = 2_000;

const HOST = hostname();

/**
 * Runs `fn` while holding the cross-process lock of the file at `path`: a symbolic link
 * `<path>.lock` whose target names the holder (`<host>:<pid>:<nonce>`). Creating a link is atomic
 * and fails when one exists, so exactly one process holds it; the holder is known from the same
 * system call, so a lock left by a killed process on this host is taken over at once (its pid is
 * gone), not after a timeout. A lock of another host, or a lock folder of an earlier version, is
 * taken over once it is {@link LOCK_STALE_MS} old. The file's folder must exist.
 *
 * Hand-written rather than `proper-lockfile` (used before): that library's lock is a folder with
 * no holder in it, so a lock left by a killed process could only be told from a live one by its
 * age (at least 2 s, 10 s here), which delayed the first write after a crash by seconds, and its
 * holder had to keep refreshing it on a timer.
 * @throws ConcurrentUpdateError when the lock stays held for {@link LOCK_WAIT_MS}; nothing ran.
 */
export async function withFileLock<T>(
  session: string,
  path: string,
  fn: () => Promise<T>,
  opts: WithFileLockOptions = {},
): Promise<T> {
  const lockPath = `${path}.lock`;
  const owner = `${HOST}:${process.pid}:${randomHex12()}`;
  const started = Date.now();
  await acquire(session, lockPath, owner);
  let release: Promise<void> | null = null;
  try {
    const result = await fn();
    if (opts.afterwards) {
      release = releaseLock(lockPath, owner, started);
      const [released, after] = await Promise.allSettled([release, opts.afterwards()]);
      if (released.status === 'rejected') throw released.reason;
      if (after.status === 'rejected') throw after.reason;
    }
    return result;
  } finally {
    if (!release) await releaseLock(lockPath, owner, started);
  }
}

/** Options of {@link withFileLock}. */
export interface WithFileLockOptions {
  /**
   * Run once `fn` succeeded, at the same time as the lock is removed (one wait instead of two);
   * its failure is the call's. For work that needs no exclusion, such as a note to a cache.
   */
  afterwards?: () => Promise<void>;
}

/** Removes the lock at `lockPath` if it is still `owner`'s (taken at `started`). */
async function releaseLock(lockPath: string, owner: string, started: number): Promise<void> {
  // Remove the lock only while it is still ours. Only a lock at least LOCK_STALE_MS old is ever
  // taken from a live holder (one of another host), so a lock let go well before that is known
  // to be ours without reading it back.
  if (
    Date.now() - started < SURELY_OWN_MS ||
    (await readlink(lockPath).catch(() => null)) === owner
  ) {
    await unlink(lockPath).catch(() => undefined);
  }
}

/** A lock held for less than this is still its holder's: half of {@link LOCK_STALE_MS}, for clock drift. */
const SURELY_OWN_MS = LOCK_STALE_MS / 2;

async function acquire(session: string, lockPath: string, owner: string): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let attempts = 0;
  for (;;) {
    attempts++;
    try {
      await symlink(owner, lockPath);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await removeIfAbandoned(lockPath)) continue;
    if (Date.now() >= deadline) throw new ConcurrentUpdateError(session, attempts);
    const ceiling = Math.min(
      MAX_RETRY_DELAY_MS,
      FIRST_RETRY_DELAY_MS * 2 ** Math.min(attempts, 10),
    );
    await delay(ceiling / 2 + Math.random() * (ceiling / 2));
  }
}

/**
 * Removes the lock at `lockPath` when its holder is gone. Waiters may find a dead lock at the same
 * moment: the removal happens under a second link (`<lock>.takeover`) and re-checks the holder,
 * so a waiter never removes the fresh lock another one took meanwhile.
 * @returns true when the lock was (or no longer is) there, so acquiring should be retried at once.
 */
export async function removeIfAbandoned(lockPath: string): Promise<boolean> {
  const seen = await lockHolder(lockPath);
  if (seen === null) return true;
  if (!seen.abandoned) return false;
  const guard = `${lockPath}.takeover`;
  const guardOwner = `${HOST}:${process.pid}:${randomHex12()}`;
  try {
    await symlink(guardOwner, guard);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const stat = await lstat(guard).catch(() => null);
    if (stat && Date.now() - stat.mtimeMs > TAKEOVER_STALE_MS)
      await unlink(guard).catch(() => undefined);
    return false;
  }
  try {
    const again = await lockHolder(lockPath);
    if (again === null) return true;
    if (!again.abandoned || again.id !== seen.id) return false;
    if (again.folder) await rmdir(lockPath).catch(() => undefined);
    else await unlink(lockPath).catch(() => undefined);
    return true;
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}

interface LockHolder {
  /** What identifies this lock instance: the link's target, or the folder's change time. */
  id: string;
  abandoned: boolean;
  /** A lock folder made by an earlier version (proper-lockfile). */
  folder: boolean;
}

async function lockHolder(lockPath: string): Promise<LockHolder | null> {
  const stat = await lstat(lockPath).catch(ignoreMissing);
  if (!stat) return null;
  const old = Date.now() - stat.mtimeMs > LOCK_STALE_MS;
  if (!stat.isSymbolicLink()) {
    return { id: `folder:${stat.ino}:${stat.mtimeMs}`, abandoned: old, folder: true };
  }
  const target = await readlink(lockPath).catch(ignoreMissing);
  if (target === null) return null;
  const [host, pidText] = target.split(':');
  const pid = Number(pidText);
  const abandoned = host === HOST && Number.isSafeInteger(pid) ? !isAlive(pid) : old;
  return { id: target, abandoned, folder: false };
}

/** Whether a process with this pid exists on this host. */
export function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ignoreMissing(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT') return null;
  throw error;
}

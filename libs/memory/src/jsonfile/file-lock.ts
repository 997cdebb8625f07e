import { lock } from 'proper-lockfile';
import { ConcurrentUpdateError } from '../core/errors';

/** How long a lock may go without its holder refreshing it before another process takes it over. */
export const LOCK_STALE_MS = 10_000;
/** How long to wait for another writer's lock before giving up. */
export const LOCK_WAIT_MS = 30_000;
const FIRST_RETRY_DELAY_MS = 2;
const MAX_RETRY_DELAY_MS = 50;

/** Tells the holder whether the lock is still its own; throws when another process took it over. */
export type AssertLockHeld = () => void;

/**
 * Runs `fn` while holding the cross-process lock of the file at `path` (a `<path>.lock` folder made
 * by `proper-lockfile`; the file itself need not exist, its folder must). Waits for other holders
 * with jittered exponential backoff, retrying only while the lock is held by someone else, and
 * takes over a lock whose holder stopped refreshing it for {@link LOCK_STALE_MS}.
 * @throws ConcurrentUpdateError when the lock stays held for {@link LOCK_WAIT_MS}; nothing ran.
 */
export async function withFileLock<T>(
  session: string,
  path: string,
  fn: (assertHeld: AssertLockHeld) => Promise<T>,
): Promise<T> {
  let compromised: Error | null = null;
  const release = await acquire(session, path, (error) => {
    compromised = error;
  });
  const assertHeld: AssertLockHeld = () => {
    if (compromised) {
      throw new Error(
        `lost the lock on ${path} (another process took it over): ${compromised.message}`,
        {
          cause: compromised,
        },
      );
    }
  };
  try {
    return await fn(assertHeld);
  } finally {
    // A compromised lock is no longer ours to remove.
    if (!compromised) await release().catch(() => undefined);
  }
}

async function acquire(
  session: string,
  path: string,
  onCompromised: (error: Error) => void,
): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let attempts = 0;
  for (;;) {
    attempts++;
    try {
      return await lock(path, { realpath: false, stale: LOCK_STALE_MS, retries: 0, onCompromised });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
      if (Date.now() >= deadline) throw new ConcurrentUpdateError(session, attempts);
      const ceiling = Math.min(
        MAX_RETRY_DELAY_MS,
        FIRST_RETRY_DELAY_MS * 2 ** Math.min(attempts, 10),
      );
      await new Promise((resolve) =>
        setTimeout(resolve, ceiling / 2 + Math.random() * (ceiling / 2)),
      );
    }
  }
}

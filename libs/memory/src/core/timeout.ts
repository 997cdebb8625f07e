import { setTimeout as delay } from 'node:timers/promises';

/**
 * Whether `work` settled within `timeoutMs`: `{ done: true, value }`, or `{ done: false }` once the
 * time is over (`work` goes on; a late rejection of it is swallowed). Rejects with `work`'s error
 * when it fails in time. The timer never keeps the process alive and is cleared either way.
 */
export async function settleWithin<T>(
  work: Promise<T>,
  timeoutMs: number,
): Promise<{ done: true; value: T } | { done: false }> {
  work.catch(() => undefined);
  const timer = new AbortController();
  const expired = delay(timeoutMs, { done: false as const }, { signal: timer.signal, ref: false });
  expired.catch(() => undefined);
  try {
    return await Promise.race([work.then((value) => ({ done: true as const, value })), expired]);
  } finally {
    timer.abort();
  }
}

/**
 * Resolves with `work`'s result, or rejects with `onTimeout()` once `timeoutMs` is over (see
 * {@link settleWithin}).
 */
export async function withTimeout<T>(
  work: Promise<T>,
  timeoutMs: number,
  onTimeout: () => Error,
): Promise<T> {
  const outcome = await settleWithin(work, timeoutMs);
  if (!outcome.done) throw onTimeout();
  return outcome.value;
}

/**
 * Resolves after `ms`, or rejects with the signal's reason (not an `AbortError`, unlike
 * `timers/promises`) as soon as it aborts. The timer never keeps the process alive.
 */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    timer.unref();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

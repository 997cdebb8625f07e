/** The probe did not answer within its time limit. */
export class HealthTimeoutError extends Error {
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`${what} did not answer within ${timeoutMs} ms`);
    this.name = 'HealthTimeoutError';
  }
}

/**
 * Resolves with `work`'s result, or rejects with {@link HealthTimeoutError} after `timeoutMs`;
 * the timer is cleared either way and never keeps the process alive. A late rejection of `work`
 * is swallowed (the probe has already answered).
 */
export async function withHealthTimeout<T>(
  what: string,
  timeoutMs: number,
  work: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const running = Promise.resolve().then(work);
  running.catch(() => undefined);
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HealthTimeoutError(what, timeoutMs)), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([running, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The text a `down` result shows for an error. */
export function healthMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Health probes answer within this many milliseconds, by default. */
export const DEFAULT_HEALTH_TIMEOUT_MS = 3000;

import { MemoryError } from '../core/errors';
import { withTimeout } from '../core/timeout';

/** The probe did not answer within its time limit. */
export class HealthTimeoutError extends MemoryError {
  readonly code = 'HEALTH_TIMEOUT';
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`${what} did not answer within ${timeoutMs} ms`);
  }
}

/**
 * Resolves with `work`'s result, or rejects with {@link HealthTimeoutError} after `timeoutMs`;
 * the timer is cleared either way and never keeps the process alive. A late rejection of `work`
 * is swallowed (the probe has already answered).
 */
export function withHealthTimeout<T>(
  what: string,
  timeoutMs: number,
  work: () => Promise<T>,
): Promise<T> {
  return withTimeout(
    Promise.resolve().then(work),
    timeoutMs,
    () => new HealthTimeoutError(what, timeoutMs),
  );
}

/** The text a `down` result shows for an error. */
export function healthMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export { DEFAULT_HEALTH_TIMEOUT_MS } from '../core/defaults';

import type { StoreObserver } from '../core/store-observer.interface';

/** Options of `SessionFiles`: sizes and the cache of one folder's sessions (defaults in `json-file.defaults.ts`). */
export interface SessionFilesOptions {
  /**
   * A session without snapshot or metadata (keys or not) stays a plain JSON array (the file
   * Phero reads) while it is at most this many bytes; past it, it moves to the log form (a head
   * and an append-only log, which Phero does not read). Default `DEFAULT_PLAIN_MAX_BYTES`.
   */
  plainMaxBytes?: number;
  /** Bytes a session's files may hold; a write past it is refused with `SessionTooLargeError`. Default `DEFAULT_MAX_SESSION_BYTES`. */
  maxSessionBytes?: number;
  /** Parsed sessions kept in memory (least recently used dropped first). Default `DEFAULT_CACHED_SESSIONS`. */
  cachedSessions?: number;
  /** Told about each written session's size against `maxSessionBytes`, for metrics. */
  observer?: StoreObserver;
}

/**
 * An option that must be a whole number of at least 1, or `fallback` when absent.
 * @throws RangeError naming the option.
 */
export function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a whole number of at least 1, got ${value}`);
  }
  return value;
}

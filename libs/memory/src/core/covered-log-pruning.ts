import type { SessionInfo } from './backend.interface';
import type { CallOptions, SessionStore } from './memory.interface';

/** Options of {@link CoveredLogPruning.pruneCovered}. */
export interface PruneCoveredOptions extends CallOptions {
  /**
   * Prune only if the session is still as this description (from `inspect` or `list`) says:
   * compared with the session as stored, in the same atomic step as the prune. Otherwise nothing
   * is dropped and `pruneCovered` throws `SessionChangedError` (what retention's `keep-summary`
   * passes, so a session written after it was judged is left alone).
   */
  ifUnchanged?: SessionInfo;
}

/**
 * A store that can drop, on request, the stored messages its latest snapshot covers: what
 * `pruneCompacted` does when a snapshot is saved, done later (retention's `keep-summary`). Every
 * built-in store (simple, JSON file, PostgreSQL, NATS) implements it.
 */
export interface CoveredLogPruning {
  /**
   * Drops the stored messages with a cursor up to the latest snapshot's `upTo`, in one atomic
   * step; the snapshot, the messages after it, the metadata and the count ever saved stay.
   * A session without a snapshot, or with nothing covered left, is not written.
   * @returns how many messages were dropped.
   * @throws SessionChangedError when `opts.ifUnchanged` no longer describes the session.
   */
  pruneCovered(opts?: PruneCoveredOptions): Promise<number>;
}

/** Whether `store` implements {@link CoveredLogPruning}. */
export function canPruneCovered(store: SessionStore): store is SessionStore & CoveredLogPruning {
  return typeof (store as Partial<CoveredLogPruning>).pruneCovered === 'function';
}

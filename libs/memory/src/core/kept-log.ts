/**
 * The session metadata key that keeps a session's whole log. While it is set, no store drops a
 * message of the session: a snapshot is saved without pruning (`pruneCompacted`), retention's
 * `keep-summary` leaves the log whole, and the in-process store does not evict past its capacity.
 * What refers to a session's messages by cursor from outside it sets the key (the LangGraph
 * saver, whose checkpoints point into the session of their thread); removing it lets pruning
 * drop what those references still need.
 */
export const KEEP_LOG_META_KEY = 'keep-log';

/** Whether a session with this metadata keeps its whole log (see {@link KEEP_LOG_META_KEY}). */
export function keepsWholeLog(meta: Readonly<Record<string, string>>): boolean {
  return Object.hasOwn(meta, KEEP_LOG_META_KEY);
}

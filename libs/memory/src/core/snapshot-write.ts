import type { Cursor, Entry, Snapshot, StoredSnapshot } from './memory.interface';

/**
 * One snapshot write as a store does it: what `saveSnapshot` asks for, and what the deprecated
 * `summarization` policy asks for (the store's one snapshot write serves both).
 */
export interface SnapshotWrite {
  readonly snapshot: Snapshot;
  readonly upTo: Cursor;
  /** The compare-and-swap: the latest snapshot must still be this one (by `upTo`). */
  readonly prev: StoredSnapshot | null;
  /** Drop the messages the snapshot covers, in the same atomic step. */
  readonly prune: boolean;
  /**
   * Write only if the stored entries after `prev` up to `upTo` are still exactly these (same
   * cursors, same messages); otherwise write nothing. A clear restarts the ordinal cursors of
   * the document and file stores, so a cursor alone may name another message by then.
   */
  readonly covers?: readonly Entry[];
}

/**
 * Whether the entries of `tail` up to `upTo` are exactly `covers` (see {@link SnapshotWrite}).
 * Messages compare by their JSON: both sides come from the same store's decoder.
 */
export function stillCovers(
  tail: readonly Entry[],
  covers: readonly Entry[],
  upTo: Cursor,
): boolean {
  const now = tail.filter((entry) => entry.cursor <= upTo);
  return (
    now.length === covers.length &&
    now.every(
      (entry, i) =>
        entry.cursor === covers[i]!.cursor &&
        JSON.stringify(entry.message) === JSON.stringify(covers[i]!.message),
    )
  );
}

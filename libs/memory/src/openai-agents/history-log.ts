import type { Cursor, Entry, StoredSnapshot } from '../core/memory.interface';
import type { Message } from '../core/message';

/**
 * The key of a marker message's `providerData`. A marker opens a conditional batch: it removes
 * earlier messages and adds the `size` messages saved right after it, but only if nothing took
 * effect in the session since the state its writer read (`after`). Every reader applies the same
 * rule to the same log, so they all agree on the history, on every store, with no store change.
 */
export const HISTORY_MARKER_KEY = 'openaiAgentsHistory';

/** What a marker message holds. */
export interface HistoryMarker {
  /** The cursor of the last change that had taken effect when the writer read the history. */
  after: Cursor | null;
  /** The cursors of the messages this batch removes. */
  removes: Cursor[];
  /** How many messages right after the marker belong to its batch. */
  size: number;
  /** A digest of the SDK transaction this batch applies, to answer a retried operation. */
  transaction?: string;
}

/** The history as the Agents session sees it, worked out from the stored log. */
export interface HistoryState {
  /** Messages in effect, oldest first, with their cursors. */
  live: Entry[];
  /** The cursor of the last change that took effect: what the next marker's `after` is. */
  last: Cursor | null;
  /** Markers (by cursor) whose condition failed: their batches changed nothing. */
  void: Set<Cursor>;
}

/** A marker message opening a batch of `marker.size` messages. */
export function markerMessage(marker: HistoryMarker): Message {
  return { role: 'system', parts: [], providerData: { [HISTORY_MARKER_KEY]: { ...marker } } };
}

/** The marker a message holds, if it is one. */
export function readMarker(message: Message): HistoryMarker | undefined {
  const value = message.providerData?.[HISTORY_MARKER_KEY];
  if (typeof value !== 'object' || value === null) return undefined;
  const marker = value as HistoryMarker;
  if (!Array.isArray(marker.removes) || typeof marker.size !== 'number') return undefined;
  return marker;
}

/**
 * Replays the stored entries after `snapshot`: plain messages take effect as they come; a marker
 * whose `after` is the last change so far removes what it names and adds its batch, any other
 * marker and its batch are left out. Removals of messages the snapshot covers are ignored.
 */
export function foldHistory(snapshot: StoredSnapshot | null, tail: readonly Entry[]): HistoryState {
  let live: Entry[] = [];
  let last: Cursor | null = snapshot ? snapshot.upTo : null;
  const voided = new Set<Cursor>();
  for (let index = 0; index < tail.length; index++) {
    const entry = tail[index]!;
    const marker = readMarker(entry.message);
    if (!marker) {
      live.push(entry);
      last = entry.cursor;
      continue;
    }
    const batch = tail.slice(index + 1, index + 1 + marker.size);
    index += marker.size;
    if (marker.after !== last) {
      voided.add(entry.cursor);
      continue;
    }
    const removed = new Set(marker.removes);
    live = live.filter((kept) => !removed.has(kept.cursor));
    live.push(...batch);
    last = batch.length > 0 ? batch[batch.length - 1]!.cursor : entry.cursor;
  }
  return { live, last, void: voided };
}

import type { Cursor, Entry } from './memory.interface';
import type { Message } from './message';

/**
 * When each kept message's batch was saved, parallel to the messages (an ISO time, or undefined
 * where unknown: messages Phero or an earlier version wrote). One string is shared by a batch's
 * messages, so the list costs a reference a message.
 */
export type SavedTimes = readonly (string | undefined)[];

/**
 * The key that marks a message in a stored JSON array with its batch's save time. Only the first
 * message of a run of one time carries it (later ones inherit it), and `null` starts a run of
 * unknown times. Message readers ignore unknown keys, so Phero and earlier versions still read
 * such an array (without the times); a Phero save writes the array back without them.
 */
export const SAVED_AT_MARK = 'savedAt';

/** An entry, with its `savedAt` only when known. */
export function timedEntry(cursor: Cursor, message: Message, savedAt: string | undefined): Entry {
  return savedAt === undefined ? { cursor, message } : { cursor, message, savedAt };
}

/** `times` when it knows any time, else undefined (the form documents keep: absent means none). */
export function knownTimes(times: SavedTimes | undefined): SavedTimes | undefined {
  return times?.some((t) => t !== undefined) ? times : undefined;
}

/** The times of `count` messages, `times` (absent: none known) padded with unknowns or cut. */
export function timesFor(times: SavedTimes | undefined, count: number): (string | undefined)[] {
  const list = times ? times.slice(0, count) : [];
  while (list.length < count) list.push(undefined);
  return list;
}

/**
 * Messages as stored in a JSON array, each run of one save time marked on its first message
 * (see {@link SAVED_AT_MARK}). Unmarked messages are returned as they are.
 */
export function markSavedTimes(
  messages: readonly Message[],
  times: SavedTimes | undefined,
): readonly unknown[] {
  if (!knownTimes(times)) return messages;
  let current: string | undefined;
  return messages.map((message, i) => {
    const at = times![i];
    if (at === current) return message;
    current = at;
    return { ...message, [SAVED_AT_MARK]: at ?? null };
  });
}

/**
 * The save times marked in a stored JSON array of messages (see {@link markSavedTimes}); a mark
 * that is not text reads as unknown. Undefined when the array holds none.
 */
export function readSavedTimes(raw: readonly unknown[]): SavedTimes | undefined {
  let current: string | undefined;
  let any = false;
  const times = raw.map((item) => {
    if (typeof item === 'object' && item !== null && SAVED_AT_MARK in item) {
      const mark = (item as Record<string, unknown>)[SAVED_AT_MARK];
      current = typeof mark === 'string' ? mark : undefined;
    }
    if (current !== undefined) any = true;
    return current;
  });
  return any ? times : undefined;
}

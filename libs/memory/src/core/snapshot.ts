import { InvalidCursorError, InvalidMessageError, SnapshotConflictError } from './errors';
import { unstorableTextReason } from './storable-text';
import type { Message } from './message';
import { userMessage } from './message';
import { dropOrphanedToolResults } from './tool-pairing';
import type { Cursor, Snapshot, StoredSnapshot } from './memory.interface';

/** Put before a snapshot's summary in the user message that stands for the covered messages. */
export const SUMMARY_PREFIX = 'Summary of the conversation so far:\n';

/**
 * The messages that stand for what a snapshot covers: one user message (a user message keeps its
 * place in the conversation, where a system message would not) holding the summary, then the
 * pinned messages.
 */
export function summaryMessages(snapshot: Snapshot): Message[] {
  return [userMessage(SUMMARY_PREFIX + snapshot.summary), ...(snapshot.pinned ?? [])];
}

/**
 * The context a model is given: the snapshot's summary messages (if any), then the messages after
 * it, with tool results whose call is not in the list dropped. What every store's `retrieve`
 * returns, and what compaction counts.
 */
export function contextMessages(
  snapshot: Snapshot | null,
  messages: readonly Message[],
): Message[] {
  return dropOrphanedToolResults(
    snapshot ? [...summaryMessages(snapshot), ...messages] : [...messages],
  );
}

/**
 * The compare-and-swap rules every store applies before it swaps in a snapshot.
 * @param latest the snapshot stored now.
 * @param lastCursor the cursor of the session's last message, or null when it has none.
 */
export function assertSnapshotSwap(
  session: string,
  latest: StoredSnapshot | null,
  prev: StoredSnapshot | null,
  upTo: Cursor,
  lastCursor: Cursor | null,
): void {
  if ((latest?.upTo ?? null) !== (prev?.upTo ?? null)) {
    throw new SnapshotConflictError(session, prev?.upTo ?? null, latest?.upTo ?? null);
  }
  assertSnapshotCursor(session, prev, upTo, lastCursor);
}

/** `upTo` must be a whole number past the previous snapshot and no later than the last message. */
export function assertSnapshotCursor(
  session: string,
  prev: StoredSnapshot | null,
  upTo: Cursor,
  lastCursor: Cursor | null,
): void {
  if (!Number.isSafeInteger(upTo)) {
    throw new InvalidCursorError(session, upTo, 'a cursor is a whole number');
  }
  if (prev && upTo <= prev.upTo) {
    throw new InvalidCursorError(
      session,
      upTo,
      `it does not move past the previous snapshot (${prev.upTo})`,
    );
  }
  if (lastCursor === null || upTo > lastCursor) {
    throw new InvalidCursorError(
      session,
      upTo,
      lastCursor === null
        ? 'the session has no messages'
        : `it lies beyond the last message (${lastCursor})`,
    );
  }
}

/** A stored snapshot's canonical form: pinned messages copied, `createdAt` now. */
export function storedSnapshot(snapshot: Snapshot, upTo: Cursor, now: Date): StoredSnapshot {
  const stored: StoredSnapshot = { summary: snapshot.summary, upTo, createdAt: now.toISOString() };
  if (snapshot.pinned && snapshot.pinned.length > 0) stored.pinned = [...snapshot.pinned];
  return stored;
}

/**
 * Checks a snapshot's summary before it is saved: a string every store can keep.
 * @throws InvalidMessageError at `snapshot.summary` (it becomes the text of a message).
 */
export function assertStorableSummary(summary: unknown): void {
  if (typeof summary !== 'string') {
    throw new InvalidMessageError('snapshot.summary', 'must be a string');
  }
  const problem = unstorableTextReason(summary);
  if (problem) throw new InvalidMessageError('snapshot.summary', problem);
}

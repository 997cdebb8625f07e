import { CorruptSessionError } from '../core/errors';
import type { Entry, StoredSnapshot } from '../core/memory.interface';
import { decodeMessage, decodeMessages } from '../core/message.codec';
import { isCanonicalMessage } from '../core/canonical-message';
import type { Message } from '../core/message';

/** A row of the context query: the snapshot row (seq null) or one message row. */
export interface ContextRow {
  seq: string | null;
  message: unknown;
  upto_seq: string | null;
  snapshot: unknown;
  /** ISO 8601 (the store's reads parse it so, see `isoTimestamps`). */
  created_at: string | null;
}

/**
 * Decodes the rows of the context query into the snapshot and the entries after it.
 * @throws CorruptSessionError naming the session and the seq of a row that does not decode.
 */
export function decodeContextRows(
  session: string,
  rows: readonly ContextRow[],
): { snapshot: StoredSnapshot | null; tail: Entry[] } {
  let snapshot: StoredSnapshot | null = null;
  const tail: Entry[] = [];
  for (const row of rows) {
    if (row.seq === null) {
      snapshot = decodeSnapshotRow(session, row);
      continue;
    }
    tail.push(
      messageEntry(session, { seq: row.seq, message: row.message, created_at: row.created_at }),
    );
  }
  return { snapshot, tail };
}

/** A message row of the store's reads: `created_at` as ISO 8601 text (see `isoTimestamps`). */
export interface MessageRow {
  seq: string;
  message: unknown;
  created_at: string | null;
}

/**
 * A message row as an `Entry`; `savedAt` is the row's `created_at`, the time of the transaction
 * that saved its batch.
 */
export function messageEntry(session: string, row: MessageRow): Entry {
  const entry: Entry = {
    cursor: Number(row.seq),
    message: decodeRowMessage(session, row.seq, row.message),
  };
  if (row.created_at) entry.savedAt = row.created_at;
  return entry;
}

/**
 * The message of a row. A row the store wrote itself is canonical already (validated on its way
 * in) and fresh from `pg`'s JSON parse, so it is taken as it is; any other is decoded.
 * @throws CorruptSessionError naming the session and seq when `value` is not a message.
 */
export function decodeRowMessage(session: string, seq: string, value: unknown): Message {
  if (isCanonicalMessage(value)) return value;
  try {
    return decodeMessage(value, `message at seq ${seq}`);
  } catch (error) {
    throw new CorruptSessionError(
      session,
      `the message row at seq ${seq} does not decode: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

function decodeSnapshotRow(session: string, row: ContextRow): StoredSnapshot {
  const value = row.snapshot as { summary?: unknown; pinned?: unknown } | null;
  try {
    if (!value || typeof value.summary !== 'string') throw new Error('"summary" is not a string');
    if (value.pinned != null && !Array.isArray(value.pinned))
      throw new Error('"pinned" is not a list');
    const pinned = decodeMessages(
      (value.pinned as unknown[] | null | undefined) ?? [],
      'snapshot.pinned',
    );
    const stored: StoredSnapshot = {
      summary: value.summary,
      upTo: Number(row.upto_seq),
      createdAt: row.created_at!,
    };
    if (pinned.length > 0) stored.pinned = pinned;
    return stored;
  } catch (error) {
    throw new CorruptSessionError(
      session,
      `the snapshot row does not decode: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

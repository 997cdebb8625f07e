import { open, type FileHandle } from 'node:fs/promises';
import type { IdempotencyRecord } from '../core/idempotency';
import { markIdempotencyKeys } from '../core/idempotency-marks';
import type { Message } from '../core/message';
import { markSavedTimes } from '../core/saved-times';
import { keyCopyLine, keyCopyPathOf } from './key-copy';
import { rememberKey, type SessionState } from './session-state';
import { writeAll } from './write-all';

/** One batch appended in place to a plain session (see `plain-array-tail.ts`). */
export interface PlainAppendBatch {
  messages: readonly Message[];
  savedAt: string;
  /** The batch's idempotency record, when it has a key: marked on it and added to the key copy. */
  record?: IdempotencyRecord;
}

/** What an append writes, and the session as it will be once written. */
export interface PlainAppendPlan {
  /** Byte offset where the batch is written: the closing `]`, or where a cut-off append began. */
  offset: number;
  /** `\n,{…},{…}]`: the batch with its marks, closing the array again. */
  data: Buffer;
  /** The file's size once written. */
  size: number;
  /** The key copy's journal line, or null for a save without a key. */
  keyLine: Buffer | null;
  /** The session as written, to cache once the write is durable (nothing is read back). */
  state: SessionState;
}

/**
 * Plans the append of `batch` to a plain session held in a JSON array (`state.plainTail` set):
 * the batch is serialized alone, with its save time and key marked on its first message.
 */
export function planPlainAppend(
  state: SessionState,
  batch: PlainAppendBatch,
  now: Date,
): PlainAppendPlan {
  const file = state.file!;
  const tail = state.plainTail!;
  const first = state.saved + 1;
  const times = batch.messages.map(() => batch.savedAt);
  const records = batch.record ? [batch.record] : undefined;
  const body = JSON.stringify(
    markIdempotencyKeys(markSavedTimes(batch.messages, times), first, records),
  );
  const appended = `${state.messages.length > 0 ? '\n,' : '\n'}${body.slice(1)}`;
  const before = file.text.slice(0, tail.at);
  // A text as long as the file is ASCII: characters are bytes.
  const offset =
    file.text.length === file.identity.size ? tail.at : Buffer.byteLength(before, 'utf8');
  const data = Buffer.from(appended, 'utf8');
  const size = offset + data.length;
  const keys = new Map(state.keys);
  if (batch.record) rememberKey(keys, batch.record);
  const text = before + appended;
  return {
    offset,
    data,
    size,
    keyLine: batch.record ? keyCopyLine(batch.record) : null,
    state: {
      ...state,
      file: { identity: { ...file.identity, size, mtimeMs: now.getTime() }, text, mtime: now },
      saved: state.saved + batch.messages.length,
      messages: Object.freeze([...state.messages, ...batch.messages]) as Message[],
      times: [...state.times, ...times],
      keys,
      plainTail: { at: text.length - 1, torn: false },
    },
  };
}

/**
 * Writes a planned append to the session file at `path`, which holds `fileSize` bytes: one
 * positional write over the closing `]` (cutting off what a cut-off append left past it), the
 * modification time stamped, one fdatasync. No temp file, no rename, so no folder fsync: the file
 * keeps its folder entry. With a key, its line is appended to the key copy first (a process
 * killed between the two writes leaves the line without the batch, which a retry finds unstored
 * at its cursors, never the batch without its line). The line is not fdatasynced: the key is
 * durable as the mark written with the batch, and the copy only has to outlive a Phero process
 * rewriting the array; syncing it too measured as most of what a key added to a save
 * (docs/benchmarks.md, "Idempotency keys").
 * On failure the array is closed again where it ended, so nothing of a refused save stays, and
 * the handles are closed. The caller holds the session's lock.
 * @param kept handles an earlier append of this process left open on the same files (see
 *   `AppendHandleCache`); what is missing is opened.
 * @returns the handles used, open, for the caller to keep or close.
 */
export async function appendToPlainFile(
  path: string,
  plan: PlainAppendPlan,
  fileSize: number,
  mtime: Date,
  kept: AppendHandles,
): Promise<AppendHandles> {
  const [handle, journal] = await Promise.all([
    kept.session ?? open(path, 'r+'),
    // The copy is what a Phero rewrite leaves of the keys: its failure does not fail the save.
    plan.keyLine ? (kept.keyCopy ?? open(keyCopyPathOf(path), 'a').catch(() => null)) : null,
  ]);
  const used = { session: handle, keyCopy: journal ?? kept.keyCopy };
  try {
    if (journal) await writeAll(journal, plan.keyLine!).catch(() => undefined);
    await writeAll(handle, plan.data, plan.offset);
    if (fileSize > plan.size) await handle.truncate(plan.size);
    await Promise.all([handle.datasync(), handle.utimes(mtime, mtime)]);
    return used;
  } catch (error) {
    // Undone where it can be; else left for a reader, who takes the array before the cut-off
    // batch (see plain-array-tail.ts).
    await closeArrayAt(handle, plan.offset).catch(() => undefined);
    closeAppendHandles(used);
    throw error;
  }
}

/** A session file opened for writing in place and its key copy opened for appending (or null). */
export interface AppendHandles {
  session: FileHandle | null;
  keyCopy: FileHandle | null;
}

export const NO_HANDLES: AppendHandles = Object.freeze({ session: null, keyCopy: null });

/** Closes `handles` without waiting. */
export function closeAppendHandles(handles: AppendHandles): void {
  if (handles.session) closeQuietly(handles.session);
  if (handles.keyCopy) closeQuietly(handles.keyCopy);
}

/**
 * Cuts the plain session file at `path` back to its array as it was before a cut-off append
 * (`state.plainTail.torn`): `]` where that append began, the rest cut off. The caller holds the
 * session's lock, so that append's writer is gone.
 */
export async function repairPlainFile(path: string, state: SessionState): Promise<void> {
  const file = state.file!;
  const offset = Buffer.byteLength(file.text.slice(0, state.plainTail!.at), 'utf8');
  const handle = await open(path, 'r+');
  try {
    await closeArrayAt(handle, offset);
  } finally {
    await handle.close();
  }
}

/** Puts the closing `]` back at `offset`, cuts the file there and makes that durable. */
async function closeArrayAt(handle: FileHandle, offset: number): Promise<void> {
  await writeAll(handle, Buffer.from(']'), offset);
  await handle.truncate(offset + 1);
  await handle.datasync();
}

/** Closes without waiting: the data is durable (or the save failed) by then. */
function closeQuietly(handle: FileHandle): void {
  handle.close().catch(() => undefined);
}

import { open, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { deepFreeze } from '../core/deep-freeze';
import { CorruptSessionError } from '../core/errors';
import { IDEMPOTENCY_KEY_WINDOW, type IdempotencyRecord } from '../core/idempotency';
import type { Cursor } from '../core/memory.interface';
import type { Message } from '../core/message';
import { timesFor } from '../core/saved-times';
import { decodeDocument } from '../core/session-document';
import { tornArrayTail, wholeArrayTail, type PlainArrayTail } from './plain-array-tail';
import { decodeHead, isHead, type SessionHead } from './session-head';
import { readLastLineRange, readLastLogLine, readLogLines, type LogBatch } from './session-log';

/** Idempotency keys remembered per session: the newest keyed saves. */
export const KEY_WINDOW = IDEMPOTENCY_KEY_WINDOW;

/** What identifies one version of a file without reading it. */
export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

/** A loaded line of the log: where it starts, its first cursor and how many messages it holds. */
export interface LoadedLine {
  offset: number;
  at: Cursor;
  count: number;
}

/** The log side of a session in log form, as far as it was read. */
export interface LoadedLog {
  head: SessionHead;
  /** The log file's inode: a new one means it was replaced. */
  ino: number;
  /** Where the committed lines read so far end. */
  end: number;
  /** The log file's size when read (above `end` when a torn last line follows). */
  size: number;
  /** The lines from `head.tail.offset` on. */
  lines: LoadedLine[];
}

/**
 * A session as read from its files: the whole of it in plain form, the part a model needs
 * (snapshot, metadata, counters and the messages after the snapshot) in log form. Loaded states
 * are cached and only ever replaced or extended by the loader, never by a writer.
 */
export interface SessionState {
  /** `none`: no file; `plain`: an array (or the older single object) in the session file; `log`: a head and its log. */
  form: 'none' | 'plain' | 'log';
  /** The session file's identity and text when read, and its modification time (`updatedAt`). */
  file: { identity: FileIdentity; text: string; mtime: Date } | null;
  snapshot: SessionHead['snapshot'];
  meta: Readonly<Record<string, string>>;
  /** Cursor of the first kept message. */
  from: Cursor;
  /** Messages ever saved: the cursor of the last one. */
  saved: number;
  /** Cursor of `messages[0]`: in plain form `from`, in log form the tail line's first cursor. */
  windowAt: Cursor;
  /** The loaded messages, frozen: cursors `windowAt`…`saved`. */
  messages: Message[];
  /** When each loaded message's batch was saved, parallel to `messages` (undefined: unknown). */
  times: (string | undefined)[];
  /** Recent idempotency keys, the cursors their saves stored and their batches' digests, oldest first. */
  keys: Map<string, IdempotencyRecord>;
  log: LoadedLog | null;
  /**
   * In plain form when the file is a JSON array: where a save appends in place (see
   * `plain-array-tail.ts`), and whether the file holds a cut-off append past it.
   */
  plainTail: PlainArrayTail | null;
}

export const NO_SESSION: SessionState = Object.freeze({
  form: 'none',
  file: null,
  snapshot: null,
  meta: Object.freeze({}),
  from: 1,
  saved: 0,
  windowAt: 1,
  messages: [],
  times: [],
  keys: new Map(),
  log: null,
  plainTail: null,
}) as SessionState;

/** The log file of a head, in the session file's folder. */
export function logPathOf(path: string, head: Pick<SessionHead, 'log'>): string {
  return join(dirname(path), head.log);
}

/** The log name of a generation: `<session file name without .json>.log-<generation>.jsonl`. */
export function logNameOf(path: string, generation: number): string {
  return `${basename(path).replace(/\.json$/i, '')}.log-${generation}.jsonl`;
}

/** Decodes a session file's text into a state with an empty window (log form) or everything (plain form). */
export function parseSessionText(
  session: string,
  text: string,
  file: SessionState['file'],
): SessionState {
  let raw: unknown = null;
  let plainTail: PlainArrayTail | null = null;
  if (text.trim() !== '') {
    try {
      raw = JSON.parse(text);
      if (Array.isArray(raw)) plainTail = wholeArrayTail(text);
    } catch (error) {
      // A plain array whose last append was cut off (by a crash, or still being written): read
      // as it was before that append, which was never acknowledged.
      plainTail = tornArrayTail(text);
      raw = plainTail === null ? undefined : parseOrUndefined(`${text.slice(0, plainTail.at)}]`);
      if (raw === undefined) {
        throw new CorruptSessionError(
          session,
          `the file is not valid JSON: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
  }
  if (raw === null) return { ...NO_SESSION, form: 'plain', file, keys: new Map() };
  if (isHead(raw)) {
    let head: SessionHead;
    try {
      head = decodeHead(session, raw as Record<string, unknown>);
    } catch (error) {
      if (error instanceof CorruptSessionError) throw error;
      throw new CorruptSessionError(session, (error as Error).message, { cause: error });
    }
    return {
      form: 'log',
      file,
      snapshot: deepFreeze(head.snapshot),
      meta: Object.freeze(head.meta),
      from: head.from,
      saved: head.tail.at - 1,
      windowAt: head.tail.at,
      messages: [],
      times: [],
      keys: keysOfHead(head),
      log: { head, ino: -1, end: head.tail.offset, size: head.tail.offset, lines: [] },
      plainTail: null,
    };
  }
  const doc = decodeDocument(session, raw);
  // The earlier single object may hold idempotency keys (`idempotencyKeys`), decoded by the core.
  const legacyKeys = doc.keys ?? [];
  const keys = new Map<string, IdempotencyRecord>();
  for (const record of legacyKeys) {
    if (record.first !== null && record.last !== null) keys.set(record.key, record);
  }
  return {
    form: 'plain',
    file,
    snapshot: deepFreeze(doc.snapshot),
    meta: Object.freeze({ ...doc.meta }),
    from: doc.saved - doc.messages.length + 1,
    saved: doc.saved,
    windowAt: doc.saved - doc.messages.length + 1,
    messages: deepFreeze([...doc.messages]),
    times: timesFor(doc.savedAt, doc.messages.length),
    keys,
    log: null,
    plainTail,
  };
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Reads what a log holds past what `state` has loaded, extending it in place (callers make sure
 * only one load of a session runs at a time). A replaced log is read again from the tail offset.
 * @throws NodeJS.ErrnoException ENOENT when the log is gone (the head was replaced meanwhile).
 * @throws CorruptSessionError when a committed line does not decode or breaks the cursor sequence.
 */
export async function refreshLog(
  session: string,
  path: string,
  state: SessionState,
): Promise<void> {
  const log = state.log!;
  const logPath = logPathOf(path, log.head);
  if (log.ino !== -1) {
    // One stat answers the common case (nothing appended) without opening the log.
    const known = await stat(logPath);
    if (known.ino === log.ino && known.size === log.size && known.size >= log.end) return;
  }
  const handle = await open(logPath, 'r');
  try {
    const current = await handle.stat();
    if (current.ino !== log.ino || current.size < log.end) {
      log.ino = current.ino;
      log.end = log.head.tail.offset;
      log.lines = [];
      state.messages = [];
      state.times = [];
      state.keys = keysOfHead(log.head);
      state.saved = log.head.tail.at - 1;
    }
    log.size = current.size;
    if (current.size > log.end) {
      const read = await readBatches(
        session,
        handle,
        log.end,
        current.size,
        state.saved + 1,
        (batch) => applyLogBatch(state, log, batch),
      );
      log.end = read;
    }
    if (state.saved < log.head.saved) {
      throw new CorruptSessionError(
        session,
        `the log ends at message ${state.saved}, before the ${log.head.saved} the head counts`,
      );
    }
  } finally {
    await handle.close();
  }
}

/** Adds one log line's batch to a loaded session: its line, its messages and their time, its cursor and its key. */
export function applyLogBatch(state: SessionState, log: LoadedLog, batch: LogBatch): void {
  log.lines.push({ offset: batch.offset, at: batch.at, count: batch.messages.length });
  for (const message of batch.messages) {
    state.messages.push(message);
    state.times.push(batch.savedAt);
  }
  state.saved = batch.at + batch.messages.length - 1;
  if (batch.key !== undefined) {
    rememberKey(state.keys, {
      key: batch.key,
      first: batch.at,
      last: state.saved,
      digest: batch.digest,
    });
  }
}

/** Records a key as the newest, forgetting the oldest beyond {@link KEY_WINDOW}. */
export function rememberKey(keys: Map<string, IdempotencyRecord>, record: IdempotencyRecord): void {
  keys.delete(record.key);
  keys.set(record.key, record);
  if (keys.size > KEY_WINDOW) keys.delete(keys.keys().next().value!);
}

/** The keys a head remembers, as records. */
function keysOfHead(head: SessionHead): Map<string, IdempotencyRecord> {
  return new Map(
    head.keys.map(([key, first, last, digest]) => [key, { key, first, last, digest }] as const),
  );
}

/**
 * Reads committed batches from `from` to `size`, checking that each continues the cursor sequence
 * at `nextAt`; messages are frozen.
 * @returns the offset where the committed lines end.
 */
export async function readBatches(
  session: string,
  handle: FileHandle,
  from: number,
  size: number,
  nextAt: Cursor,
  onBatch: (batch: LogBatch) => boolean | void,
): Promise<number> {
  let expected = nextAt;
  try {
    const { end } = await readLogLines(handle, from, size, (batch) => {
      if (batch.at !== expected) {
        throw new Error(
          `log line at byte ${batch.offset} starts at message ${batch.at}, expected ${expected}`,
        );
      }
      expected += batch.messages.length;
      deepFreeze(batch.messages);
      return onBatch(batch);
    });
    return end;
  } catch (error) {
    if (error instanceof CorruptSessionError) throw error;
    throw new CorruptSessionError(session, `the log ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * The count ever saved of a head's log: from the cursor and count that end its last line (its
 * last bytes), or for a log whose last line lacks them, from that line decoded.
 */
export async function lastSavedOfLog(
  session: string,
  path: string,
  head: SessionHead,
): Promise<number> {
  const handle = await open(logPathOf(path, head), 'r');
  try {
    const { size } = await handle.stat();
    const range = await readLastLineRange(handle, size);
    if (range) return Math.max(head.saved, range.at + range.count - 1);
    const last = await readLastLogLine(handle, size).catch((error: Error) => {
      throw new CorruptSessionError(session, `the log ${error.message}`, { cause: error });
    });
    return Math.max(head.saved, last ? last.at + last.messages.length - 1 : 0);
  } finally {
    await handle.close();
  }
}

/** @throws CorruptSessionError when the snapshot points before the first message or past the last. */
export function assertSnapshotInRange(session: string, state: SessionState): void {
  const upTo = state.snapshot?.upTo;
  if (upTo === undefined) return;
  if (upTo < 1 || upTo > state.saved) {
    throw new CorruptSessionError(
      session,
      `the snapshot covers up to message ${upTo}, but the session holds messages 1 to ${state.saved}`,
    );
  }
}

import { open, rename, unlink, utimes } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomHex12 } from './random-hex';
import { SessionTooLargeError } from '../core/errors';
import type { Cursor, Entry, StoredSnapshot } from '../core/memory.interface';
import type { Message } from '../core/message';
import { markSavedTimes, timedEntry, type SavedTimes } from '../core/saved-times';
import { tellObserver, type StoreObserver } from '../core/store-observer.interface';
import { syncDirectory, writeFileAtomic } from './atomic-write';
import type { SessionHead } from './session-head';
import { encodeLogLine, type LogBatch } from './session-log';
import { writeAll, writeAllOf } from './write-all';
import { keyRecords, tailOf } from './head-records';
import { headNames, planGeneration, type WholeSession } from './log-generation';
import { identityOf } from './session-file-read';
import { removeKeyCopy, writeKeyCopy } from './key-copy';
import { ParsedSessionCache } from './parsed-session-cache';
import type { IdempotencyRecord } from '../core/idempotency';
import { markIdempotencyKeys } from '../core/idempotency-marks';
import { SessionWriteQueue } from './session-write-queue';
import {
  appendToPlainFile,
  planPlainAppend,
  repairPlainFile,
  closeAppendHandles,
  NO_HANDLES,
  type PlainAppendBatch,
} from './plain-append';
import { AppendHandleCache, KEPT_APPEND_HANDLES } from './append-handle-cache';
import { removeSessionLogs } from './log-generation';
import {
  logPathOf,
  NO_SESSION,
  readBatches,
  applyLogBatch,
  type SessionState,
} from './session-state';
import {
  DEFAULT_CACHED_SESSIONS,
  DEFAULT_MAX_SESSION_BYTES,
  DEFAULT_PLAIN_MAX_BYTES,
} from './json-file.defaults';
import { positive, type SessionFilesOptions } from './session-files.options';
export type { SessionFilesOptions } from './session-files.options';

/**
 * The files of the sessions of one folder (or one file), shared by every store a backend opens:
 * parsed sessions are cached by path and revalidated by the files' identity (inode, size,
 * modification time), so opening a session per request does not parse it again; a grown log is
 * read from where the cache stopped. Loads of one session run one at a time, and so do writes
 * (which also hold the cross-process file lock).
 */
export class SessionFiles {
  readonly plainMaxBytes: number;
  readonly maxSessionBytes: number;
  private readonly observer: StoreObserver | undefined;
  private readonly cache: ParsedSessionCache;
  private readonly writes = new SessionWriteQueue();
  private readonly handles: AppendHandleCache | null;

  /**
   * @param own.keepAppendHandles keep the files of the last appends open between saves (see
   *   `AppendHandleCache`); for an owner that calls {@link close}, as `jsonFileBackend` does.
   */
  constructor(opts: SessionFilesOptions = {}, own: { keepAppendHandles?: boolean } = {}) {
    this.handles = own.keepAppendHandles ? new AppendHandleCache(KEPT_APPEND_HANDLES) : null;
    this.plainMaxBytes = positive('plainMaxBytes', opts.plainMaxBytes, DEFAULT_PLAIN_MAX_BYTES);
    this.maxSessionBytes = positive(
      'maxSessionBytes',
      opts.maxSessionBytes,
      DEFAULT_MAX_SESSION_BYTES,
    );
    this.cache = new ParsedSessionCache(
      positive('cachedSessions', opts.cachedSessions, DEFAULT_CACHED_SESSIONS),
    );
    this.observer = opts.observer;
  }

  /** Closes the files kept open between appends. */
  close(): void {
    this.handles?.close();
  }

  /** Runs `fn` after the writes already queued on `path` in this process. */
  serialize<T>(path: string, fn: () => Promise<T>): Promise<T> {
    return this.writes.serialize(path, fn);
  }

  /** See {@link SessionWriteQueue.enqueue}. */
  enqueue<T>(path: string, item: T, flush: (items: T[]) => Promise<void>): void {
    this.writes.enqueue(path, item, flush);
  }

  /** The session as its files hold it now (see {@link ParsedSessionCache.load}). */
  load(session: string, path: string): Promise<SessionState> {
    return this.cache.load(session, path);
  }

  /**
   * Entries of the whole kept log from cursor `after` on (at most `limit`), oldest first; reads
   * the log from its start only when the page begins before the loaded window.
   */
  async entries(
    session: string,
    path: string,
    state: SessionState,
    after: Cursor,
    limit: number,
  ): Promise<Entry[]> {
    const entries: Entry[] = [];
    const start = Math.max(after + 1, state.from);
    if (state.form !== 'log' || start >= state.windowAt) {
      for (let c = start; c <= state.saved && entries.length < limit; c++) {
        const i = c - state.windowAt;
        entries.push(timedEntry(c, state.messages[i]!, state.times[i]));
      }
      return entries;
    }
    const handle = await open(logPathOf(path, state.log!.head), 'r');
    try {
      await readBatches(session, handle, 0, state.log!.end, state.from, (batch) => {
        batch.messages.forEach((message, i) => {
          const cursor = batch.at + i;
          if (cursor >= start && entries.length < limit) {
            entries.push(timedEntry(cursor, message, batch.savedAt));
          }
        });
        return entries.length < limit;
      });
    } finally {
      await handle.close();
    }
    return entries;
  }

  /** Every kept message, for rewrites: reads the whole log in log form. */
  async whole(session: string, path: string, state: SessionState): Promise<WholeSession> {
    const fromLog =
      state.form === 'log' && state.windowAt > state.from
        ? await this.entries(session, path, state, state.from - 1, Infinity)
        : null;
    return {
      messages: fromLog ? fromLog.map((e) => e.message) : state.messages,
      savedAt: fromLog ? fromLog.map((e) => e.savedAt) : state.times,
      saved: state.saved,
      snapshot: state.snapshot,
      meta: state.meta,
      keyRecords: keyRecords(state),
    };
  }

  /**
   * Appends batches to a session in log form, one line each, in one positional write and one
   * fdatasync of the log (no folder entry changes, so the folder needs no fsync), after cutting
   * off a torn last line left by a crash. Then stamps the session file's modification time
   * (`updatedAt`). A batch that would take the session past `maxSessionBytes` is left out (its
   * result is the error) and the others are stored. The caller holds the lock and loaded `state`
   * under it.
   * @returns per batch, its first and last cursor, or the `SessionTooLargeError` that refused it.
   */
  async append(
    session: string,
    path: string,
    state: SessionState,
    batches: ReadonlyArray<{
      messages: readonly Message[];
      key?: string;
      digest?: string;
      savedAt?: string;
    }>,
    now: Date,
  ): Promise<Array<readonly [Cursor, Cursor] | SessionTooLargeError>> {
    const log = state.log!;
    const { end, size: fileSize } = log;
    let next = state.saved + 1;
    let size = state.file!.identity.size + end;
    const lines: Buffer[] = [];
    const appended: LogBatch[] = [];
    let offset = end;
    const results = batches.map(({ messages, key, digest, savedAt }) => {
      const line = Buffer.from(encodeLogLine(next, messages, key, digest, savedAt), 'utf8');
      if (size + line.length > this.maxSessionBytes) {
        return new SessionTooLargeError(session, size + line.length, this.maxSessionBytes);
      }
      lines.push(line);
      appended.push({ offset, at: next, messages, key, digest, savedAt });
      offset += line.length;
      size += line.length;
      next += messages.length;
      return [next - messages.length, next - 1] as const;
    });
    if (lines.length === 0) return results;
    const data = lines.length === 1 ? lines[0]! : Buffer.concat(lines);
    const handle = await open(logPathOf(path, log.head), 'r+');
    try {
      if (fileSize > end) await handle.truncate(end);
      try {
        await writeAll(handle, data, end);
        await handle.datasync();
      } catch (error) {
        // Nothing of a failed append may stay: the part written could hold whole lines that a
        // later load would take as stored, for saves that were refused.
        await handle.truncate(end).catch(() => undefined);
        await handle.datasync().catch(() => undefined);
        throw error;
      }
    } finally {
      await handle.close();
    }
    await utimes(path, now, now);
    await this.noteAppended(path, state, end, appended, data.length, now);
    this.reportSize(session, size);
    return results;
  }

  /**
   * Brings the cached state up to what this process just appended, so that its next read or
   * write need not read its own lines back: only if no load has read past `end` meanwhile.
   * Another process's writes are found by the next load as usual.
   */
  private async noteAppended(
    path: string,
    state: SessionState,
    end: number,
    appended: readonly LogBatch[],
    length: number,
    now: Date,
  ): Promise<void> {
    // Wait until no load runs or waits, then update in one synchronous step, so no load reads
    // these lines while they are recorded.
    await this.cache.settle(path);
    const log = state.log!;
    if (this.cache.get(path) !== state || log.end !== end) return;
    for (const batch of appended) applyLogBatch(state, log, batch);
    log.end = end + length;
    log.size = log.end;
    state.file = {
      ...state.file!,
      identity: { ...state.file!.identity, mtimeMs: now.getTime() },
      mtime: now,
    };
  }

  /**
   * Appends a batch to a plain session in place (`appendToPlainFile`), serializing it alone and
   * reading nothing back; the caller holds the lock and loaded `state` (an array) under it.
   * @returns the state written, or null when the array would pass `plainMaxBytes` (nothing written).
   * @throws SessionTooLargeError when it would pass `maxSessionBytes`.
   */
  async appendPlain(
    session: string,
    path: string,
    state: SessionState,
    batch: PlainAppendBatch,
    now: Date,
  ): Promise<SessionState | null> {
    const plan = planPlainAppend(state, batch, now);
    if (plan.size > this.plainMaxBytes) return null;
    this.assertSize(session, plan.size);
    const kept = this.handles?.take(path, state) ?? NO_HANDLES;
    const used = await appendToPlainFile(path, plan, state.file!.identity.size, now, kept);
    if (this.handles) this.handles.keep(path, plan.state, used);
    else closeAppendHandles(used);
    this.reportSize(session, plan.size);
    await this.cache.settle(path);
    this.cache.remember(path, plan.state);
    return plan.state;
  }

  /** Cuts off what a crashed append left in a plain session file (see `repairPlainFile`); under the lock. */
  async repairPlain(session: string, path: string, state: SessionState): Promise<SessionState> {
    if (!state.plainTail?.torn) return state;
    await repairPlainFile(path, state);
    this.cache.forget(path);
    return this.load(session, path);
  }

  /**
   * Rewrites a plain session as the array Phero reads, with its save times and idempotency keys
   * as marks on the messages (see `SAVED_AT_MARK`, `IDEMPOTENCY_KEY_MARK`): serialized once, then
   * written atomically (temp file, fsync, rename, folder fsync). With `keysChanged`, the key copy
   * (`keyCopyPathOf`) is written at the same time; which one lands first does not matter (a
   * copy's record counts only where its messages are stored, and the marks are written with the
   * messages), and a copy that fails to be written is left to the next keyed save. The written
   * state becomes the cached one: nothing is read back. The caller holds the lock and loaded
   * `state` under it. Used where the file is not an array yet (`appendPlain` is the usual save).
   * @returns the state written, or null when the array would pass `plainMaxBytes` (nothing written).
   * @throws SessionTooLargeError when it would pass `maxSessionBytes`.
   */
  async writePlain(
    session: string,
    path: string,
    state: SessionState,
    next: {
      messages: readonly Message[];
      times: SavedTimes;
      keys: ReadonlyMap<string, IdempotencyRecord>;
      keysChanged: boolean;
    },
    now: Date,
  ): Promise<SessionState | null> {
    const { messages, times, keys } = next;
    const records = [...keys.values()];
    const text = JSON.stringify(markIdempotencyKeys(markSavedTimes(messages, times), 1, records));
    // Most messages are ASCII: the text length is a cheap lower bound on the bytes.
    if (text.length > this.plainMaxBytes) return null;
    const size = Buffer.byteLength(text);
    if (size > this.plainMaxBytes) return null;
    this.assertSize(session, size);
    const [written] = await Promise.all([
      writeFileAtomic(path, text, { mtime: now }),
      // The copy's failure (a full disk) does not fail the save: the marks hold the keys.
      next.keysChanged ? writeKeyCopy(path, keys).catch(() => undefined) : undefined,
    ]);
    this.reportSize(session, size);
    const saved: SessionState = {
      ...NO_SESSION,
      form: 'plain',
      file: { identity: identityOf(written), text, mtime: written.mtime },
      snapshot: state.snapshot,
      meta: state.meta,
      from: 1,
      saved: messages.length,
      windowAt: 1,
      messages: Object.freeze([...messages]) as Message[],
      times: [...times],
      keys: new Map(keys),
      plainTail: { at: text.length - 1, torn: false },
    };
    await this.cache.settle(path);
    this.cache.remember(path, saved);
    return saved;
  }

  /**
   * Rewrites the head of a session in log form (snapshot, metadata, where the tail starts, keys),
   * atomically. The log is unchanged.
   */
  async writeHead(
    session: string,
    path: string,
    state: SessionState,
    change: { snapshot?: StoredSnapshot | null; meta?: Readonly<Record<string, string>> },
    now: Date,
  ): Promise<void> {
    const log = state.log!;
    const snapshot = change.snapshot === undefined ? state.snapshot : change.snapshot;
    const tail = tailOf(state, snapshot);
    const head: SessionHead = {
      ...log.head,
      tail,
      saved: state.saved,
      snapshot,
      meta: { ...(change.meta ?? state.meta) },
      keys: keyRecords(state),
    };
    const text = JSON.stringify(head);
    const size = Buffer.byteLength(text) + log.end;
    this.assertSize(session, size);
    await writeFileAtomic(path, text, { mtime: now });
    this.reportSize(session, size);
  }

  /**
   * Writes a whole session in log form as a new log generation, then a head naming it, then
   * removes the previous log: used to migrate a plain session, to prune, and for the deprecated
   * summarization's rewrite. A crash before the head is replaced leaves the previous files as
   * they were (the new log is then an orphan, overwritten by the next rewrite).
   */
  async writeGeneration(
    session: string,
    path: string,
    state: SessionState,
    whole: WholeSession,
    now: Date,
  ): Promise<void> {
    const { name, headText, chunks, logBytes } = planGeneration(path, state, whole);
    const size = logBytes + Buffer.byteLength(headText);
    this.assertSize(session, size);
    const logPath = join(dirname(path), name);
    const temp = join(dirname(path), `.${name}.${process.pid}.${randomHex12()}.tmp`);
    let renamed = false;
    try {
      const handle = await open(temp, 'wx');
      try {
        await writeAllOf(handle, chunks, 0);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, logPath);
      renamed = true;
    } finally {
      if (!renamed) await unlink(temp).catch(() => undefined);
    }
    await syncDirectory(dirname(path));
    try {
      await writeFileAtomic(path, headText, { mtime: now });
    } catch (error) {
      // The new log holds space a full disk needs back: remove it unless the head names it
      // (the rename went through and only the folder's fsync failed).
      if (!(await headNames(path, name))) await unlink(logPath).catch(() => undefined);
      throw error;
    }
    if (state.log && state.log.head.log !== name) {
      await unlink(logPathOf(path, state.log.head)).catch(() => undefined);
    }
    // The head holds the keys now: a plain session's key copy is not needed any more.
    if (state.form === 'plain') await removeKeyCopy(path).catch(() => undefined);
    this.reportSize(session, size);
  }

  /**
   * Removes a session's files: the session file first (so no head ever names a missing log),
   * then its key copy and every log of it. The caller holds the lock.
   */
  async remove(path: string): Promise<void> {
    this.cache.forget(path);
    this.handles?.drop(path);
    await unlink(path).catch(ignoreMissing);
    await removeKeyCopy(path);
    await removeSessionLogs(path);
  }

  private reportSize(sessionId: string, bytes: number): void {
    tellObserver(this.observer, (observer) =>
      observer.sessionSize?.({
        backend: 'jsonfile',
        sessionId,
        bytes,
        limitBytes: this.maxSessionBytes,
      }),
    );
  }

  private assertSize(session: string, size: number): void {
    if (size > this.maxSessionBytes)
      throw new SessionTooLargeError(session, size, this.maxSessionBytes);
  }
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}

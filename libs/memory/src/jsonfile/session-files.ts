import { open, readdir, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CorruptSessionError, SessionTooLargeError } from '../core/errors';
import type { Cursor, Entry, StoredSnapshot } from '../core/memory.interface';
import type { Message } from '../core/message';
import { markSavedTimes, timedEntry, timesFor, type SavedTimes } from '../core/saved-times';
import { tellObserver, type StoreObserver } from '../core/store-observer.interface';
import { syncDirectory, writeFileAtomic } from './atomic-write';
import { HEAD_FORMAT, isHead, type KeyRecord, type SessionHead } from './session-head';
import { encodeLogLine, type LogBatch } from './session-log';
import { writeAll, writeAllOf } from './write-all';
import {
  assertSnapshotInRange,
  KEY_WINDOW,
  logNameOf,
  logPathOf,
  NO_SESSION,
  parseSessionText,
  readBatches,
  refreshLog,
  applyLogBatch,
  type FileIdentity,
  type SessionState,
} from './session-state';
import {
  DEFAULT_CACHED_SESSIONS,
  DEFAULT_MAX_SESSION_BYTES,
  DEFAULT_PLAIN_MAX_BYTES,
} from '../core/defaults';

/** Messages per line when a whole log is rewritten (migration, prune). */
const REWRITE_LINE_MESSAGES = 512;

export interface SessionFilesOptions {
  /**
   * A session without snapshot, metadata or idempotency keys stays a plain JSON array (the file
   * Phero reads) while it is at most this many bytes; past it, it moves to the log form, where a
   * save appends instead of rewriting. Default {@link DEFAULT_PLAIN_MAX_BYTES}.
   */
  plainMaxBytes?: number;
  /** Bytes a session's files may hold; a write past it is refused with `SessionTooLargeError`. Default {@link DEFAULT_MAX_SESSION_BYTES}. */
  maxSessionBytes?: number;
  /** Parsed sessions kept in memory (least recently used dropped first). Default {@link DEFAULT_CACHED_SESSIONS}. */
  cachedSessions?: number;
  /** Told about each written session's size against `maxSessionBytes`, for metrics. */
  observer?: StoreObserver;
}

/** What the whole kept log of a session is, for the rare writes that rewrite it. */
export interface WholeSession {
  messages: readonly Message[];
  /** When each message's batch was saved, parallel to `messages`. Absent: none known. */
  savedAt?: SavedTimes;
  saved: number;
  snapshot: StoredSnapshot | null;
  meta: Readonly<Record<string, string>>;
  keyRecords: KeyRecord[];
}

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
  private readonly cachedSessions: number;
  private readonly observer: StoreObserver | undefined;
  private readonly cache = new Map<string, SessionState>();
  private readonly loading = new Map<string, Promise<SessionState>>();
  private readonly nextLoad = new Map<string, Promise<SessionState>>();
  private readonly writing = new Map<string, Promise<unknown>>();
  private readonly waitingSaves = new Map<string, unknown[]>();

  constructor(opts: SessionFilesOptions = {}) {
    this.plainMaxBytes = positive('plainMaxBytes', opts.plainMaxBytes, DEFAULT_PLAIN_MAX_BYTES);
    this.maxSessionBytes = positive(
      'maxSessionBytes',
      opts.maxSessionBytes,
      DEFAULT_MAX_SESSION_BYTES,
    );
    this.cachedSessions = positive('cachedSessions', opts.cachedSessions, DEFAULT_CACHED_SESSIONS);
    this.observer = opts.observer;
  }

  /** Runs `fn` after the writes already queued on `path` in this process. */
  serialize<T>(path: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.writing.get(path) ?? Promise.resolve()).then(fn);
    const settled = run.catch(() => undefined);
    this.writing.set(path, settled);
    void settled.then(() => {
      if (this.writing.get(path) === settled) this.writing.delete(path);
    });
    return run;
  }

  /**
   * Queues `item` for the next group write of `path`: saves that wait while an earlier write of
   * the same session runs are handed to `flush` together, once, in the order they came (a group
   * commit: one lock, one append and one fdatasync for all of them).
   */
  enqueue<T>(path: string, item: T, flush: (items: T[]) => Promise<void>): void {
    const waiting = this.waitingSaves.get(path) as T[] | undefined;
    if (waiting) {
      waiting.push(item);
      return;
    }
    const group = [item];
    this.waitingSaves.set(path, group);
    void this.serialize(path, () => {
      this.waitingSaves.delete(path);
      return flush(group);
    }).catch(() => undefined);
  }

  /**
   * The session as its files hold it now: the result of a load that starts after this call (so
   * a write committed before the call, by any process, is in it). Loads of one session run one
   * at a time; calls that arrive while one runs share the next one.
   */
  load(session: string, path: string): Promise<SessionState> {
    const queued = this.nextLoad.get(path);
    if (queued) return queued;
    const running = this.loading.get(path);
    const start = (): Promise<SessionState> => {
      const load = this.loadNow(session, path).finally(() => {
        if (this.loading.get(path) === load) this.loading.delete(path);
      });
      this.loading.set(path, load);
      return load;
    };
    if (!running) return start();
    const next = running
      .catch(() => undefined)
      .then(() => {
        this.nextLoad.delete(path);
        return start();
      });
    this.nextLoad.set(path, next);
    return next;
  }

  private async loadNow(session: string, path: string): Promise<SessionState> {
    for (let attempt = 0; ; attempt++) {
      const cached = this.cache.get(path) ?? null;
      const file = await readSessionFile(path, cached?.file?.identity ?? null);
      if (file === null) {
        this.cache.delete(path);
        return NO_SESSION;
      }
      let state: SessionState;
      if (file === 'unchanged') {
        state = cached!;
      } else if (cached && file.text === cached.file!.text) {
        // Only the time changed (an append stamps it): the parsed head still holds.
        state = cached;
        state.file = file;
      } else {
        this.cache.delete(path);
        state = parseSessionText(session, file.text, file);
      }
      try {
        if (state.form === 'log') await refreshLog(session, path, state);
        assertSnapshotInRange(session, state);
      } catch (error) {
        this.cache.delete(path);
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' && attempt < 5) continue;
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          throw new CorruptSessionError(session, `its log ${state.log!.head.log} is missing`);
        }
        throw error;
      }
      this.cache.delete(path);
      this.cache.set(path, state);
      if (this.cache.size > this.cachedSessions) this.cache.delete(this.cache.keys().next().value!);
      return state;
    }
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
    for (;;) {
      const load = this.nextLoad.get(path) ?? this.loading.get(path);
      if (!load) break;
      await load.catch(() => undefined);
    }
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
   * Rewrites a plain session as the array Phero reads (atomically: temp file, fsync, rename,
   * folder fsync), its save times as marks on the messages (see `SAVED_AT_MARK`).
   */
  async writePlain(
    session: string,
    path: string,
    messages: readonly Message[],
    times: SavedTimes,
    now: Date,
  ): Promise<void> {
    const text = JSON.stringify(markSavedTimes(messages, times));
    const size = Buffer.byteLength(text);
    this.assertSize(session, size);
    await writeFileAtomic(path, text, { mtime: now });
    this.reportSize(session, size);
  }

  /** Whether a plain session of these messages (saved at `times`) stays plain. */
  fitsPlain(messages: readonly Message[], times: SavedTimes): boolean {
    // Most messages are ASCII: the text length is a cheap lower bound on the bytes.
    const text = JSON.stringify(markSavedTimes(messages, times));
    return text.length <= this.plainMaxBytes && Buffer.byteLength(text) <= this.plainMaxBytes;
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
    const generation = (state.log?.head.generation ?? 0) + 1;
    const name = logNameOf(path, generation);
    const from = whole.saved - whole.messages.length + 1;
    const upTo = whole.snapshot?.upTo ?? 0;
    let tail = { offset: 0, at: from };
    const chunks: Buffer[] = [];
    let offset = 0;
    const times = timesFor(whole.savedAt, whole.messages.length);
    for (const [start, count] of rewriteLines(times)) {
      const at = from + start;
      const batch = whole.messages.slice(start, start + count);
      if (at <= upTo + 1 && upTo + 1 < at + batch.length) tail = { offset, at };
      const line = Buffer.from(
        encodeLogLine(at, batch, undefined, undefined, times[start]),
        'utf8',
      );
      chunks.push(line);
      offset += line.length;
    }
    if (upTo >= whole.saved) tail = { offset, at: whole.saved + 1 };
    else if (upTo + 1 < from) tail = { offset: 0, at: from };
    const head: SessionHead = {
      format: HEAD_FORMAT,
      log: name,
      generation,
      from,
      tail,
      saved: whole.saved,
      snapshot: whole.snapshot,
      meta: { ...whole.meta },
      keys: whole.keyRecords.slice(-KEY_WINDOW),
    };
    const headText = JSON.stringify(head);
    const size = offset + Buffer.byteLength(headText);
    this.assertSize(session, size);
    const logPath = join(dirname(path), name);
    const temp = join(
      dirname(path),
      `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
    );
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
    this.reportSize(session, size);
  }

  /**
   * Removes a session's files: the session file first (so no head ever names a missing log),
   * then every log of it. The caller holds the lock.
   */
  async remove(path: string): Promise<void> {
    this.cache.delete(path);
    await unlink(path).catch(ignoreMissing);
    const dir = dirname(path);
    const prefix = `${basename(path).replace(/\.json$/i, '')}.log-`;
    const names = await readdir(dir).catch(() => [] as string[]);
    await Promise.all(
      names
        .filter((name) => name.startsWith(prefix) && /^\d+\.jsonl$/.test(name.slice(prefix.length)))
        .map((name) => unlink(join(dir, name)).catch(ignoreMissing)),
    );
    await syncDirectory(dir);
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

/**
 * How a rewrite splits a log into lines, as `[start, count]`: one line per run of messages saved
 * at one time (so each keeps its time), at most {@link REWRITE_LINE_MESSAGES} a line.
 */
function rewriteLines(times: readonly (string | undefined)[]): Array<[number, number]> {
  const lines: Array<[number, number]> = [];
  let start = 0;
  for (let i = 1; i <= times.length; i++) {
    if (i === times.length || times[i] !== times[start] || i - start === REWRITE_LINE_MESSAGES) {
      lines.push([start, i - start]);
      start = i;
    }
  }
  return lines;
}

/** The tail position for `snapshot` in a loaded log: the line holding `upTo + 1`, or the log's end. */
function tailOf(state: SessionState, snapshot: StoredSnapshot | null): SessionHead['tail'] {
  const log = state.log!;
  if (!snapshot) return { offset: 0, at: state.from };
  const next = snapshot.upTo + 1;
  if (next > state.saved) return { offset: log.end, at: state.saved + 1 };
  const line = log.lines.find((l) => l.at <= next && next < l.at + l.count);
  // The snapshot in force when loaded starts the window, and a new one only moves forward.
  return line ? { offset: line.offset, at: line.at } : log.head.tail;
}

/** Whether the session file at `path` is a head naming the log `name`. */
async function headNames(path: string, name: string): Promise<boolean> {
  try {
    const raw = JSON.parse(await readFile(path, 'utf8')) as unknown;
    return isHead(raw) && (raw as { log?: unknown }).log === name;
  } catch {
    return false;
  }
}

/** A session's remembered idempotency keys as stored in a head, oldest first. */
export function keyRecords(state: SessionState): KeyRecord[] {
  return [...state.keys.values()].map(({ key, first, last, digest }): KeyRecord =>
    digest === undefined ? [key, first!, last!] : [key, first!, last!, digest],
  );
}

/**
 * The session file's text and identity from one open handle, or `unchanged` when its identity is
 * still `known`, or null when it does not exist.
 */
async function readSessionFile(
  path: string,
  known: FileIdentity | null,
): Promise<SessionState['file'] | 'unchanged' | null> {
  if (known) {
    // One stat answers the common case (nothing changed) without opening the file.
    const s = await stat(path).catch(ignoreMissingStat);
    if (s === null) return null;
    if (sameIdentity(known, identityOf(s))) return 'unchanged';
  }
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const s = await handle.stat();
    return { identity: identityOf(s), text: await handle.readFile('utf8'), mtime: s.mtime };
  } finally {
    await handle.close();
  }
}

/** A file's identity; the time is rounded to milliseconds, the precision a stamped `Date` has. */
function identityOf(s: Stats): FileIdentity {
  return { ino: s.ino, size: s.size, mtimeMs: Math.round(s.mtimeMs) };
}

function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

function ignoreMissingStat(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT') return null;
  throw error;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a whole number of at least 1, got ${value}`);
  }
  return value;
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}

import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { throwIfAborted } from '../core/abort';
import type { SessionInfo } from '../core/backend.interface';
import type { ErasedSession } from '../core/resource-erase';
import type { StoredSessionCheck } from '../core/session-delete';
import type { PruneCoveredOptions } from '../core/covered-log-pruning';
import { sameSessionState } from '../core/session-info';
import { deepFreeze } from '../core/deep-freeze';
import {
  IdempotencyKeyReusedError,
  SessionChangedError,
  SessionTooLargeError,
  SnapshotsUnsupportedError,
} from '../core/errors';
import {
  storeContext,
  summaryPolicyOf,
  type LegacySummaryPolicy,
  type SummarizationStoreOptions,
  type SummaryTarget,
} from '../core/legacy-summarization';
import type {
  CallOptions,
  Cursor,
  EntriesQuery,
  Entry,
  SaveOptions,
  SaveResult,
  SessionStore,
  Snapshot,
  SnapshotState,
  StoredSnapshot,
} from '../core/memory.interface';
import type { Message } from '../core/message';
import { validateMessages } from '../core/message.codec';
import {
  assertIdempotencyKey,
  batchDigest,
  EMPTY_SAVE_RESULT,
  replayedResult,
  replayOrRefuse,
} from '../core/idempotency';
import { batchSavedAt } from '../core/saved-at';
import { timedEntry } from '../core/saved-times';
import { setDocumentMeta } from '../core/session-document';
import { assertSnapshotSwap, assertStorableSummary, storedSnapshot } from '../core/snapshot';
import { DRAW_CONTEXT } from '../core/context-drawing';
import { stillCovers, type SnapshotWrite } from '../core/snapshot-write';
import { withFileLock } from './file-lock';
import { asFileStoreErrors, fileStoreError } from './write-all';
import { noteSessionWritten } from './session-index';
import { keyRecords } from './head-records';
import { SessionFiles, type SessionFilesOptions } from './session-files';
import { inspectSessionFile, sessionIdOfPath, sessionInfoOfState } from './session-file';
import { rememberKey, type SessionState } from './session-state';

/** Options of `JsonFileMemory` (one session file). */
export interface JsonFileMemoryOptions extends SessionFilesOptions, SummarizationStoreOptions {
  /** Drop the messages a snapshot covers when it is saved (rewriting the log without them). Default false. */
  pruneCompacted?: boolean;
  /** The session name used in error messages. Default: the file name without `.json`. */
  sessionId?: string;
  /** Clock for `updatedAt` (stamped as the session file's modification time) and snapshot times. */
  now?: () => Date;
  /**
   * The parse cache and write queue to share with other stores of the same folder (what
   * `jsonFileBackend` passes, so stores opened per request reuse what was parsed). Default: one
   * of this store's own, made from the options above.
   */
  sessionFiles?: SessionFiles;
}

/**
 * A session kept in files: `<id>.json` is the session, so pointing at the same file after a
 * restart resumes it. Two forms, both read (see the README's "JSON-file storage format"):
 *
 * - **plain**: the file is a JSON array of messages, the file Phero reads, while the session has
 *   no snapshot or metadata and stays under `plainMaxBytes`. A save rewrites it atomically (temp
 *   file, fsync, rename, folder fsync). Idempotency keys are marks on the first message of each
 *   keyed batch, written with it, and copied to `<id>.json.keys` beside it (the copy outlives a
 *   Phero process rewriting the array without the marks).
 * - **log**: the file is a small head (snapshot, metadata, counters, recent idempotency keys and
 *   the byte offset where the messages after the snapshot start) naming an append-only JSON Lines
 *   log `<id>.log-<n>.jsonl`, one line per saved batch. A save appends one line and fdatasyncs the
 *   log, so it costs the batch, not the history; a read after a snapshot reads the head and the
 *   log from that offset, so it costs the tail. A torn last line (a crash during an append that
 *   was therefore never acknowledged) is ignored and cut off by the next writer.
 *
 * Both forms keep when each batch was saved (`Entry.savedAt`): a `savedAt` mark on the first
 * message of a batch in the plain array (readers of messages, Phero's included, skip it), `t` on
 * each log line (docs/storage-formats.md).
 *
 * Older files (a plain array, the earlier single object, Phero's files, `null` from Phero's
 * `Clear`) load; a session moves to the log form on the first write that needs it. Safe across
 * processes: every write takes the file's lock (`<file>.lock`), re-reads what changed and writes;
 * reads take no lock. A file that does not decode raises `CorruptSessionError` and is never
 * overwritten; only {@link clear} removes it.
 *
 * Messages handed out are frozen (they are shared with the cache of parsed sessions).
 */
export class JsonFileMemory implements SessionStore {
  /** The session file's absolute path. */
  readonly path: string;
  readonly sessionId: string;
  private readonly files: SessionFiles;
  private readonly pruneCompacted: boolean;
  private readonly now: () => Date;
  private readonly summaryPolicy: LegacySummaryPolicy | undefined;

  private constructor(path: string, opts: JsonFileMemoryOptions) {
    this.path = resolve(path);
    this.sessionId = opts.sessionId ?? sessionIdOfPath(this.path);
    this.files = opts.sessionFiles ?? new SessionFiles(opts);
    this.pruneCompacted = opts.pruneCompacted ?? false;
    this.now = opts.now ?? (() => new Date());
    this.summaryPolicy = summaryPolicyOf(opts);
  }

  /**
   * A memory over the file at `path` (which need not exist yet; it and its folder are created by
   * the first write). Opening reads nothing, so a corrupt file can still be cleared.
   * @throws TypeError when `path` is empty.
   * @throws RangeError when the `summarization` or size options are out of range.
   */
  static async open(path: string, opts: JsonFileMemoryOptions = {}): Promise<JsonFileMemory> {
    if (typeof path !== 'string' || path === '')
      throw new TypeError('JsonFileMemory needs a file path');
    return new JsonFileMemory(path, opts);
  }

  /**
   * What a session list shows about the file at `path`, read without opening it as a memory:
   * `id` is the file name without `.json`, `updatedAt` the file's modification time. In log form
   * it reads the head and the log's last line only.
   * @returns null when the file does not exist.
   * @throws CorruptSessionError when the file does not decode.
   */
  static async inspect(path: string): Promise<SessionInfo | null> {
    const absolute = resolve(path);
    return inspectSessionFile(sessionIdOfPath(absolute), absolute);
  }

  async retrieve(_query?: string, opts?: CallOptions): Promise<Message[]> {
    throwIfAborted(opts);
    const state = await this.load();
    return this[DRAW_CONTEXT](state.snapshot, afterSnapshot(state));
  }

  /** What `retrieve` returns for a snapshot and the messages after it (see `DRAW_CONTEXT`). */
  [DRAW_CONTEXT](snapshot: Snapshot | null, messages: readonly Message[]): Message[] {
    return storeContext(this.summaryPolicy, snapshot, messages);
  }

  async loadSnapshot(opts?: CallOptions): Promise<SnapshotState> {
    throwIfAborted(opts);
    const state = await this.load();
    return { snapshot: state.snapshot, tail: tailEntries(state) };
  }

  async entries(query: EntriesQuery = {}, opts?: CallOptions): Promise<Entry[]> {
    throwIfAborted(opts);
    const state = await this.load();
    const limit = query.limit === undefined ? Infinity : Math.max(0, query.limit);
    if (limit === 0) return [];
    return this.files.entries(this.sessionId, this.path, state, query.after ?? 0, limit);
  }

  async meta(): Promise<Record<string, string>> {
    return { ...(await this.load()).meta };
  }

  /**
   * Appends the batch atomically and contiguously (see the class comment for what a save writes);
   * with an idempotency key already seen, stores nothing and resolves with the first save's result.
   * @throws IdempotencyKeyReusedError when the key was first saved with other messages.
   * @throws InvalidMessageError naming the offending path; nothing is written.
   * @throws InvalidIdempotencyKeyError for a malformed key; nothing is written.
   * @throws SessionTooLargeError when the session's files would pass `maxSessionBytes`.
   * @throws CorruptSessionError when the stored session does not decode; it is left as it was.
   */
  async save(messages: readonly Message[], opts?: SaveOptions): Promise<SaveResult> {
    const batch = deepFreeze(validateMessages(messages));
    const key = opts?.idempotencyKey;
    if (key !== undefined) assertIdempotencyKey(key);
    const savedAt = batchSavedAt(opts, this.now);
    throwIfAborted(opts);
    if (batch.length === 0) {
      const seen = key === undefined ? undefined : (await this.load()).keys.get(key);
      return seen ? replayedResult(seen) : EMPTY_SAVE_RESULT;
    }
    const digest = key === undefined ? undefined : batchDigest(batch);
    const outcome = await new Promise<SaveResult>((resolve, reject) =>
      this.files.enqueue<QueuedSave>(
        this.path,
        { batch, key, digest, savedAt, opts, resolve, reject },
        (group) => this.flushSaves(group),
      ),
    );
    await this.summaryPolicy?.afterSave(outcome, this.summaryTarget(), opts);
    return outcome;
  }

  /** @throws SnapshotsUnsupportedError when the store has the deprecated `summarization` option. */
  async saveSnapshot(
    snapshot: Snapshot,
    upTo: Cursor,
    prev: StoredSnapshot | null,
    opts?: CallOptions,
  ): Promise<StoredSnapshot> {
    if (this.summaryPolicy) throw new SnapshotsUnsupportedError(this.sessionId);
    const write = { snapshot, upTo, prev, prune: this.pruneCompacted };
    return (await this.writeSnapshot(write, opts))!;
  }

  /**
   * The one snapshot write, under the file lock: `saveSnapshot`'s and the summary policy's.
   * Without pruning, a session in log form replaces only its head; otherwise it is rewritten as
   * a new generation (without the covered messages when pruning).
   * @returns null when `write.covers` no longer matched (nothing written).
   */
  private async writeSnapshot(
    write: SnapshotWrite,
    opts?: CallOptions,
  ): Promise<StoredSnapshot | null> {
    const { snapshot, upTo, prev, prune } = write;
    assertStorableSummary(snapshot.summary);
    const pinned = deepFreeze(validateMessages(snapshot.pinned ?? [], 'snapshot.pinned'));
    throwIfAborted(opts);
    return this.write('snapshot save', opts, async (state) => {
      if (write.covers && !stillCovers(tailEntries(state), write.covers, upTo)) return null;
      const last = state.saved >= state.from ? state.saved : null;
      assertSnapshotSwap(this.sessionId, state.snapshot, prev, upTo, last);
      const now = this.now();
      const stored = deepFreeze(storedSnapshot({ ...snapshot, pinned }, upTo, now));
      if (state.form === 'log' && !prune) {
        await this.files.writeHead(this.sessionId, this.path, state, { snapshot: stored }, now);
      } else {
        const whole = await this.files.whole(this.sessionId, this.path, state);
        const drop = prune ? Math.max(0, upTo - (whole.saved - whole.messages.length)) : 0;
        await this.files.writeGeneration(
          this.sessionId,
          this.path,
          state,
          {
            ...whole,
            messages: whole.messages.slice(drop),
            savedAt: whole.savedAt?.slice(drop),
            snapshot: stored,
          },
          now,
        );
      }
      return stored;
    });
  }

  /** What the summary policy reads and writes through. */
  private summaryTarget(): SummaryTarget {
    return {
      loadSnapshot: (opts) => this.loadSnapshot(opts),
      writeSnapshot: (write, opts) => this.writeSnapshot(write, opts),
    };
  }

  /** See `CoveredLogPruning`: rewrites the log without the covered messages, under the file lock. */
  async pruneCovered(opts?: PruneCoveredOptions): Promise<number> {
    throwIfAborted(opts);
    const expected = opts?.ifUnchanged;
    const dropped = await this.write('prune', opts, async (state) => {
      const current = sessionInfoOfState(this.sessionId, state);
      // Checked under the same locks as the prune: -1 is "changed since it was read".
      if (expected && (current === null || !sameSessionState(current, expected))) return -1;
      const upTo = state.snapshot?.upTo;
      if (upTo === undefined || state.from > upTo || state.saved < state.from) return 0;
      const whole = await this.files.whole(this.sessionId, this.path, state);
      const dropped = Math.min(
        whole.messages.length,
        Math.max(0, upTo - (whole.saved - whole.messages.length)),
      );
      if (dropped === 0) return 0;
      await this.files.writeGeneration(
        this.sessionId,
        this.path,
        state,
        {
          ...whole,
          messages: whole.messages.slice(dropped),
          savedAt: whole.savedAt?.slice(dropped),
        },
        this.now(),
      );
      return dropped;
    });
    if (dropped < 0) throw new SessionChangedError(this.sessionId);
    return dropped;
  }

  async setMeta(key: string, value: string): Promise<void> {
    // Checks the entry before any I/O (the same rules as every store).
    setDocumentMeta({ messages: [], saved: 0, snapshot: null, meta: {} }, key, value);
    await this.write('metadata write', undefined, async (state) => {
      const meta = setDocumentMeta(
        { messages: [], saved: 0, snapshot: null, meta: state.meta },
        key,
        value,
      ).meta;
      const now = this.now();
      if (state.form === 'log') {
        await this.files.writeHead(this.sessionId, this.path, state, { meta }, now);
      } else if (Object.keys(meta).length > 0 || Object.keys(state.meta).length > 0) {
        const whole = await this.files.whole(this.sessionId, this.path, state);
        await this.files.writeGeneration(this.sessionId, this.path, state, { ...whole, meta }, now);
      }
    });
  }

  /** Removes the session: deletes its files (also corrupt ones), so it is as if new. */
  async clear(opts?: CallOptions): Promise<void> {
    throwIfAborted(opts);
    await this.files.serialize(this.path, () =>
      asFileStoreErrors('clear', this.sessionId, async () => {
        if (!(await exists(dirname(this.path)))) return;
        await withFileLock(this.sessionId, this.path, () => this.files.remove(this.path));
        await this.noteWritten();
      }),
    );
  }

  /**
   * Removes the session's files when `belongs(meta, info)` holds for the session as stored now,
   * reading and removing under the same locks as a save, so no save lands between the check and
   * the removal.
   * @returns the messages it kept, or null when there was no session or it does not belong.
   */
  async eraseIf(belongs: StoredSessionCheck): Promise<ErasedSession> {
    return this.files.serialize(this.path, () =>
      asFileStoreErrors('erase', this.sessionId, async () => {
        if (!(await exists(dirname(this.path)))) return null;
        const erased = await withFileLock(this.sessionId, this.path, async () => {
          const state = await this.files.load(this.sessionId, this.path);
          if (
            state.form === 'none' ||
            !belongs(state.meta, sessionInfoOfState(this.sessionId, state))
          )
            return null;
          await this.files.remove(this.path);
          return { messages: Math.max(0, state.saved - state.from + 1) };
        });
        if (erased) await this.noteWritten();
        return erased;
      }),
    );
  }

  /** The session as stored now; a file error is a `StorageFullError` or `BackendUnavailableError`. */
  private load(): Promise<SessionState> {
    return asFileStoreErrors('read', this.sessionId, () =>
      this.files.load(this.sessionId, this.path),
    );
  }

  /**
   * Runs `change` on the session as stored now, holding this process's queue for the file and
   * the cross-process lock. The folder is created only when the lock cannot be made for its lack.
   */
  private write<T>(
    operation: string,
    opts: CallOptions | undefined,
    change: (state: SessionState) => Promise<T>,
  ): Promise<T> {
    return this.files.serialize(this.path, () => this.locked(operation, opts, change));
  }

  /**
   * Runs `change` on the session as stored now, holding the cross-process lock (the caller holds
   * this process's queue for the file). The folder is created only when the lock cannot be made
   * for its lack (at most once per call). A file error is a `StorageFullError` or a `BackendUnavailableError` naming
   * `operation`.
   */
  private async locked<T>(
    operation: string,
    opts: CallOptions | undefined,
    change: (state: SessionState) => Promise<T>,
  ): Promise<T> {
    throwIfAborted(opts);
    const attempt = () =>
      withFileLock(
        this.sessionId,
        this.path,
        async () => {
          const state = await this.files.load(this.sessionId, this.path);
          throwIfAborted(opts);
          return change(state);
        },
        // The index note needs no lock: written while the lock is removed.
        { afterwards: () => this.noteWritten() },
      );
    return asFileStoreErrors(operation, this.sessionId, async () => {
      let result: T;
      try {
        result = await attempt();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        // The folder was missing when the lock was tried. Another session's first save may have
        // made it since, so whether it exists now says nothing: make it (a no-op when there)
        // and try once more; a second ENOENT is then about something else and is thrown.
        await mkdir(dirname(this.path), { recursive: true });
        result = await attempt();
      }
      return result;
    });
  }

  /** Tells the folder's session index (as the lock is removed: see `SessionIndex`). */
  private noteWritten(): Promise<void> {
    return noteSessionWritten(dirname(this.path), this.sessionId, this.path);
  }

  /**
   * Stores a group of saves that waited for the same write turn, in their order, under one lock:
   * in log form as one append (one write, one fdatasync); before that one at a time. A key seen
   * before, or earlier in the group, replays that save's result. Each caller gets its own outcome
   * or error; an error of the session itself (corrupt, unreachable) fails those not yet stored.
   */
  private async flushSaves(group: QueuedSave[]): Promise<void> {
    // Callers are answered once the lock is released, so a resolved save has left no lock behind.
    const answers = new Map<QueuedSave, () => void>();
    const held = group.map((item): QueuedSave => ({
      ...item,
      resolve: (outcome) => answers.set(item, () => item.resolve(outcome)),
      reject: (error) => answers.set(item, () => item.reject(error)),
    }));
    const pending = held.filter((item) => {
      try {
        throwIfAborted(item.opts);
        return true;
      } catch (error) {
        item.reject(error);
        return false;
      }
    });
    let failure: { error: unknown } | null = null;
    try {
      if (pending.length > 0) {
        await this.locked('save', undefined, async (loaded) => {
          let state = loaded;
          while (pending.length > 0 && (state.form !== 'log' || this.mayBePlain(state))) {
            const item = pending[0]!;
            try {
              const saved = await this.saveAlone(state, item);
              // A session in log form that the plain array cannot hold: appended below.
              if (saved === null) break;
              pending.shift();
              item.resolve(saved.result);
              // A plain rewrite hands back what it wrote; after a move to the log form, the log
              // is read under the lock (the appends need its loaded end).
              state = saved.state ?? (await this.files.load(this.sessionId, this.path));
            } catch (error) {
              pending.shift();
              item.reject(fileStoreError('save', this.sessionId, error));
              // Refusals of this save alone (nothing written); the others of the group go on.
              const own =
                error instanceof SessionTooLargeError || error instanceof IdempotencyKeyReusedError;
              if (!own) throw error;
            }
          }
          if (pending.length > 0) await this.appendGroup(state, pending.splice(0));
        });
      }
    } catch (error) {
      failure = { error };
    }
    for (const item of group) {
      const answer = answers.get(item);
      if (answer) answer();
      else item.reject(failure ? failure.error : new Error('save was not stored'));
    }
  }

  /**
   * One save to a session not in log form: a plain rewrite (keyed or not: a key is a mark on the
   * batch's first message, see `SessionFiles.writePlain`), or the move to the log form. A session
   * in log form that {@link mayBePlain} goes back to the plain array when it fits (its keys then
   * move to the marks and the copy, and its log is removed).
   * @returns the save's result, and the session as written when it is plain; null for a session
   *   in log form that does not fit the plain array (nothing written: append the save).
   */
  private async saveAlone(
    state: SessionState,
    item: QueuedSave,
  ): Promise<{ result: SaveResult; state: SessionState | null } | null> {
    const { batch, key, digest, savedAt } = item;
    const seen = key === undefined ? undefined : state.keys.get(key);
    if (seen) return { result: replayOrRefuse(this.sessionId, seen, digest), state };
    const first = state.saved + 1;
    const last = state.saved + batch.length;
    const result: SaveResult = { first, last, replayed: false };
    const now = this.now();
    const all = [...state.messages, ...batch];
    const times = [...state.times, ...batch.map(() => savedAt)];
    const keys = new Map(state.keys);
    if (key !== undefined) rememberKey(keys, { key, first, last, digest });
    const fromLog = state.form === 'log';
    if (isPlain(state) || fromLog) {
      const next = { messages: all, times, keys, keysChanged: key !== undefined || fromLog };
      const written = await this.files.writePlain(this.sessionId, this.path, state, next, now);
      if (written && fromLog) await this.files.removeLogs(this.path);
      if (written) return { result, state: written };
      if (fromLog) return null;
    }
    await this.files.writeGeneration(
      this.sessionId,
      this.path,
      state,
      {
        messages: all,
        savedAt: times,
        saved: last,
        snapshot: state.snapshot,
        meta: state.meta,
        keyRecords: keyRecords({ ...state, keys }),
      },
      now,
    );
    return { result, state: null };
  }

  /**
   * Whether a session in log form holds nothing the plain array cannot (no snapshot, no metadata,
   * nothing pruned, every message loaded) and its log is small enough to try: a session an earlier
   * version moved to the log form for its idempotency keys alone goes back to the array Phero
   * reads on its next save.
   */
  private mayBePlain(state: SessionState): boolean {
    return (
      state.form === 'log' &&
      state.snapshot === null &&
      Object.keys(state.meta).length === 0 &&
      state.from === 1 &&
      state.windowAt === 1 &&
      state.log!.end <= this.files.plainMaxBytes
    );
  }

  /** Appends a group of saves to a session in log form (see {@link flushSaves}). */
  private async appendGroup(state: SessionState, items: QueuedSave[]): Promise<void> {
    const writes: QueuedSave[] = [];
    const repeats: Array<{ item: QueuedSave; of: QueuedSave }> = [];
    const firstWithKey = new Map<string, QueuedSave>();
    for (const item of items) {
      const seen = item.key === undefined ? undefined : state.keys.get(item.key);
      const earlier = item.key === undefined ? undefined : firstWithKey.get(item.key);
      if (seen) {
        try {
          item.resolve(replayOrRefuse(this.sessionId, seen, item.digest));
        } catch (error) {
          item.reject(error);
        }
      } else if (earlier && earlier.digest !== item.digest) {
        item.reject(new IdempotencyKeyReusedError(this.sessionId, item.key!));
      } else if (earlier) repeats.push({ item, of: earlier });
      else {
        if (item.key !== undefined) firstWithKey.set(item.key, item);
        writes.push(item);
      }
    }
    const results = await this.files.append(
      this.sessionId,
      this.path,
      state,
      writes.map((item) => ({
        messages: item.batch,
        key: item.key,
        digest: item.digest,
        savedAt: item.savedAt,
      })),
      this.now(),
    );
    const outcomes = new Map<QueuedSave, readonly [Cursor, Cursor] | Error>();
    writes.forEach((item, i) => {
      const result = results[i]!;
      outcomes.set(item, result);
      if (result instanceof Error) item.reject(result);
      else item.resolve({ first: result[0], last: result[1], replayed: false });
    });
    for (const { item, of } of repeats) {
      const result = outcomes.get(of)!;
      if (result instanceof Error) item.reject(result);
      else item.resolve({ first: result[0], last: result[1], replayed: true });
    }
  }
}

/** A save waiting for its session's next write turn. */
interface QueuedSave {
  batch: readonly Message[];
  key: string | undefined;
  /** The batch's digest, kept with `key`. */
  digest: string | undefined;
  /** The time recorded for the batch (ISO). */
  savedAt: string;
  opts: SaveOptions | undefined;
  resolve(outcome: SaveResult): void;
  reject(error: unknown): void;
}

/** A session that the plain array can hold: its whole log (idempotency keys are marks on it), nothing else. */
function isPlain(state: SessionState): boolean {
  return (
    state.form !== 'log' &&
    state.snapshot === null &&
    Object.keys(state.meta).length === 0 &&
    state.from === 1
  );
}

/** The stored entries after the snapshot, as `loadSnapshot` returns them. */
function tailEntries(state: SessionState): Entry[] {
  const messages = afterSnapshot(state);
  const first = state.saved - messages.length + 1;
  const skip = state.messages.length - messages.length;
  return messages.map((message, i) => timedEntry(first + i, message, state.times[skip + i]));
}

/** The loaded messages after the snapshot. */
function afterSnapshot(state: SessionState): readonly Message[] {
  const upTo = state.snapshot?.upTo ?? 0;
  const skip = Math.max(0, upTo - state.windowAt + 1);
  return skip === 0 ? state.messages : state.messages.slice(skip);
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { throwIfAborted } from '../core/abort';
import type { SessionInfo } from '../core/backend.interface';
import type { ErasedSession } from '../core/resource-erase';
import type { StoredSessionCheck } from '../core/session-delete';
import type { PruneCoveredOptions } from '../core/covered-log-pruning';
import { sameSessionState } from '../core/session-info';
import { deepFreeze } from '../core/deep-freeze';
import { SessionChangedError, SnapshotsUnsupportedError } from '../core/errors';
import { keepsWholeLog } from '../core/kept-log';
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
} from '../core/idempotency';
import { batchSavedAt } from '../core/saved-at';
import { timedEntry } from '../core/saved-times';
import { setDocumentMeta } from '../core/session-document';
import { assertSnapshotSwap, assertStorableSummary, storedSnapshot } from '../core/snapshot';
import { DRAW_CONTEXT } from '../core/context-drawing';
import { stillCovers, type SnapshotWrite } from '../core/snapshot-write';
import { withFileLock } from './file-lock';
import { asFileStoreErrors } from './write-all';
import { GroupedSaves, type QueuedSave } from './grouped-saves';
import { LockedSessionFile } from './locked-session-file';
import { SessionFiles, type SessionFilesOptions } from './session-files';
import { inspectSessionFile, sessionIdOfPath, sessionInfoOfState } from './session-file';
import type { SessionState } from './session-state';

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
 *   no snapshot or metadata and stays under `plainMaxBytes`. A save appends its batch in place
 *   over the closing `]` (one write, one fdatasync; see `plain-array-tail.ts` for what a crash
 *   mid-write leaves and how it is read). Idempotency keys are marks on the first message of each
 *   keyed batch, written with it, and journaled in `<id>.json.keys` beside it (the copy outlives a
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
  private readonly file: LockedSessionFile;
  private readonly saves: GroupedSaves;
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
    this.file = new LockedSessionFile(this.sessionId, this.path, this.files);
    this.saves = new GroupedSaves(this.file, this.now);
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
    const state = await this.file.load();
    return this[DRAW_CONTEXT](state.snapshot, afterSnapshot(state));
  }

  /** What `retrieve` returns for a snapshot and the messages after it (see `DRAW_CONTEXT`). */
  [DRAW_CONTEXT](snapshot: Snapshot | null, messages: readonly Message[]): Message[] {
    return storeContext(this.summaryPolicy, snapshot, messages);
  }

  async loadSnapshot(opts?: CallOptions): Promise<SnapshotState> {
    throwIfAborted(opts);
    const state = await this.file.load();
    return { snapshot: state.snapshot, tail: tailEntries(state) };
  }

  async entries(query: EntriesQuery = {}, opts?: CallOptions): Promise<Entry[]> {
    throwIfAborted(opts);
    const state = await this.file.load();
    const limit = query.limit === undefined ? Infinity : Math.max(0, query.limit);
    if (limit === 0) return [];
    return this.files.entries(this.sessionId, this.path, state, query.after ?? 0, limit);
  }

  async meta(): Promise<Record<string, string>> {
    return { ...(await this.file.load()).meta };
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
      const seen = key === undefined ? undefined : (await this.file.load()).keys.get(key);
      return seen ? replayedResult(seen) : EMPTY_SAVE_RESULT;
    }
    const digest = key === undefined ? undefined : batchDigest(batch);
    const outcome = await new Promise<SaveResult>((resolve, reject) =>
      this.files.enqueue<QueuedSave>(
        this.path,
        { batch, key, digest, savedAt, opts, resolve, reject },
        (group) => this.saves.flush(group),
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
    const { snapshot, upTo, prev } = write;
    assertStorableSummary(snapshot.summary);
    const pinned = deepFreeze(validateMessages(snapshot.pinned ?? [], 'snapshot.pinned'));
    throwIfAborted(opts);
    return this.file.write('snapshot save', opts, async (state) => {
      if (write.covers && !stillCovers(tailEntries(state), write.covers, upTo)) return null;
      const last = state.saved >= state.from ? state.saved : null;
      assertSnapshotSwap(this.sessionId, state.snapshot, prev, upTo, last);
      const now = this.now();
      const stored = deepFreeze(storedSnapshot({ ...snapshot, pinned }, upTo, now));
      const prune = write.prune && !keepsWholeLog(state.meta);
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
    const dropped = await this.file.write('prune', opts, async (state) => {
      const current = sessionInfoOfState(this.sessionId, state);
      // Checked under the same locks as the prune: -1 is "changed since it was read".
      if (expected && (current === null || !sameSessionState(current, expected))) return -1;
      const upTo = state.snapshot?.upTo;
      if (upTo === undefined || state.from > upTo || state.saved < state.from) return 0;
      if (keepsWholeLog(state.meta)) return 0;
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
    await this.file.write('metadata write', undefined, async (state) => {
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
        await this.file.noteWritten();
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
        if (erased) await this.file.noteWritten();
        return erased;
      }),
    );
  }
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

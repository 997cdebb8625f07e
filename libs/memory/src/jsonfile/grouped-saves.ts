import { throwIfAborted } from '../core/abort';
import { IdempotencyKeyReusedError, SessionTooLargeError } from '../core/errors';
import { replayOrRefuse } from '../core/idempotency';
import type { Cursor, SaveOptions, SaveResult } from '../core/memory.interface';
import type { Message } from '../core/message';
import { keyRecords } from './head-records';
import type { LockedSessionFile } from './locked-session-file';
import { removeSessionLogs } from './log-generation';
import { rememberKey, type SessionState } from './session-state';
import { fileStoreError } from './write-all';

/**
 * Stores the saves of one session file that waited for the same write turn (`JsonFileMemory.save`
 * queues them): the plain array rewritten one save at a time, a session in log form appended to
 * in one write.
 */
export class GroupedSaves {
  /**
   * @param file the session file, written under its locks.
   * @param now the clock stamped as the session file's modification time.
   */
  constructor(
    private readonly file: LockedSessionFile,
    private readonly now: () => Date,
  ) {}

  /**
   * Stores a group of saves that waited for the same write turn, in their order, under one lock:
   * in log form as one append (one write, one fdatasync); before that one at a time. A key seen
   * before, or earlier in the group, replays that save's result. Each caller gets its own outcome
   * or error; an error of the session itself (corrupt, unreachable) fails those not yet stored.
   */
  async flush(group: QueuedSave[]): Promise<void> {
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
        await this.file.locked('save', undefined, async (loaded) => {
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
              state =
                saved.state ?? (await this.file.files.load(this.file.sessionId, this.file.path));
            } catch (error) {
              pending.shift();
              item.reject(fileStoreError('save', this.file.sessionId, error));
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
   * One save to a session not in log form: an append in place to the plain array (keyed or not:
   * a key is a mark on the batch's first message, see `SessionFiles.appendPlain`), a rewrite of
   * a plain session that is not an array yet or lost its marks (`SessionFiles.writePlain`), or
   * the move to the log form. A session in log form that {@link mayBePlain} goes back to the
   * plain array when it fits (its keys then move to the marks and the copy, and its log is
   * removed).
   * @returns the save's result, and the session as written when it is plain; null for a session
   *   in log form that does not fit the plain array (nothing written: append the save).
   */
  private async saveAlone(
    state: SessionState,
    item: QueuedSave,
  ): Promise<{ result: SaveResult; state: SessionState | null } | null> {
    const { batch, key, digest, savedAt } = item;
    const seen = key === undefined ? undefined : state.keys.get(key);
    if (seen) return { result: replayOrRefuse(this.file.sessionId, seen, digest), state };
    const first = state.saved + 1;
    const last = state.saved + batch.length;
    const result: SaveResult = { first, last, replayed: false };
    const now = this.now();
    const record = key === undefined ? undefined : { key, first, last, digest };
    const inPlace = isPlain(state) && state.plainTail !== null;
    if (inPlace) {
      // The array as it is on disk: the batch is appended in place (one write, one fdatasync).
      const appended = await this.file.files.appendPlain(
        this.file.sessionId,
        this.file.path,
        state,
        { messages: batch, savedAt, record },
        now,
      );
      if (appended) return { result, state: appended };
    }
    const all = [...state.messages, ...batch];
    const times = [...state.times, ...batch.map(() => savedAt)];
    const keys = new Map(state.keys);
    if (record) rememberKey(keys, record);
    const fromLog = state.form === 'log';
    // An array past plainMaxBytes moves to the log form below.
    if (!inPlace && (isPlain(state) || fromLog)) {
      const next = { messages: all, times, keys, keysChanged: key !== undefined || fromLog };
      const written = await this.file.files.writePlain(
        this.file.sessionId,
        this.file.path,
        state,
        next,
        now,
      );
      if (written && fromLog) await removeSessionLogs(this.file.path);
      if (written) return { result, state: written };
      if (fromLog) return null;
    }
    await this.file.files.writeGeneration(
      this.file.sessionId,
      this.file.path,
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
      state.log!.end <= this.file.files.plainMaxBytes
    );
  }

  /** Appends a group of saves to a session in log form (see {@link flush}). */
  private async appendGroup(state: SessionState, items: QueuedSave[]): Promise<void> {
    const writes: QueuedSave[] = [];
    const repeats: Array<{ item: QueuedSave; of: QueuedSave }> = [];
    const firstWithKey = new Map<string, QueuedSave>();
    for (const item of items) {
      const seen = item.key === undefined ? undefined : state.keys.get(item.key);
      const earlier = item.key === undefined ? undefined : firstWithKey.get(item.key);
      if (seen) {
        try {
          item.resolve(replayOrRefuse(this.file.sessionId, seen, item.digest));
        } catch (error) {
          item.reject(error);
        }
      } else if (earlier && earlier.digest !== item.digest) {
        item.reject(new IdempotencyKeyReusedError(this.file.sessionId, item.key!));
      } else if (earlier) repeats.push({ item, of: earlier });
      else {
        if (item.key !== undefined) firstWithKey.set(item.key, item);
        writes.push(item);
      }
    }
    const results = await this.file.files.append(
      this.file.sessionId,
      this.file.path,
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
export interface QueuedSave {
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

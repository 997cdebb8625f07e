import { throwIfAborted } from './abort';
import { deepFreeze } from './deep-freeze';
import { SessionChangedError, SnapshotsUnsupportedError } from './errors';
import type { PruneCoveredOptions } from './covered-log-pruning';
import { sameSessionContent } from './session-info';
import {
  EMPTY_SAVE_RESULT,
  assertIdempotencyKey,
  batchDigest,
  findIdempotencyRecord,
  replayedResult,
} from './idempotency';
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
} from './memory.interface';
import { storeContext, type LegacySummaryPolicy, type SummaryTarget } from './legacy-summarization';
import type { Message } from './message';
import { validateMessages } from './message.codec';
import { batchSavedAt } from './saved-at';
import { DRAW_CONTEXT } from './context-drawing';
import { assertStorableSummary } from './snapshot';
import { stillCovers, type SnapshotWrite } from './snapshot-write';
import {
  dropOldest,
  firstCursor,
  documentEntriesPage,
  documentTail,
  provesNotStored,
  saveToDocument,
  setDocumentMeta,
  snapshotDocument,
  type SessionDocument,
} from './session-document';
import { keepsWholeLog } from './kept-log';

/**
 * A change to a session's document; returning null writes nothing. `unknownOutcome` is given when
 * an earlier run of this change was written and not answered, and a write on the revision it was
 * based on was then found stored (that one, or another writer's).
 */
export type DocumentChange = (
  doc: SessionDocument,
  unknownOutcome?: UnknownOutcome,
) => SessionDocument | null;

/** See {@link DocumentChange}. */
export interface UnknownOutcome {
  /** What the unanswered write failed with: thrown by a change that cannot tell whether it was stored. */
  readonly error: unknown;
}

/** Options of {@link DocumentStore.update}. */
export interface UpdateOptions extends CallOptions {
  /**
   * Applied again to a document that already holds it, the change writes nothing (a save with an
   * idempotency key): a store may retry it after a write whose outcome it did not learn.
   */
  idempotent?: boolean;
}

export interface DocumentStoreRules {
  /** Drop the messages a snapshot covers when it is saved. */
  pruneCompacted: boolean;
  /** Messages kept (FIFO eviction past it). Default: all. */
  capacity?: number;
  /** Clock for snapshot times (and whatever the store stamps). */
  now: () => Date;
  /** The deprecated `summarization` option: run after each save; `saveSnapshot` is then refused. */
  summaryPolicy?: LegacySummaryPolicy;
}

/**
 * The contract of a store that keeps a whole session as one document (in-process, JSON file,
 * NATS KV value), written once: every method is a pure transition of `core/session-document.ts`.
 * A subclass only says how the document is read ({@link load}) and how a change is applied
 * atomically against concurrent writers ({@link update}), and how the session is removed.
 *
 * Stored messages are frozen, so they can be handed out without copying.
 */
export abstract class DocumentStore implements SessionStore {
  protected readonly now: () => Date;

  protected constructor(
    /** The session id, for error messages (and the key or file name of the store). */
    readonly sessionId: string,
    private readonly rules: DocumentStoreRules,
  ) {
    this.now = rules.now;
  }

  /** The stored document now (`EMPTY_DOCUMENT` when there is none). */
  protected abstract load(opts?: CallOptions): Promise<SessionDocument>;

  /**
   * Applies `change` to the stored document atomically: no other writer's change, in this process
   * or another, lands between the read it is applied to and its write. Errors thrown by `change`
   * propagate and nothing is written.
   * @returns the document written, or null when `change` returned null.
   */
  protected abstract update(
    change: DocumentChange,
    opts?: UpdateOptions,
  ): Promise<SessionDocument | null>;

  /** Removes messages, snapshot and metadata: the session is then as if new. */
  abstract clear(opts?: CallOptions): Promise<void>;

  async retrieve(_query?: string, opts?: CallOptions): Promise<Message[]> {
    throwIfAborted(opts);
    const doc = await this.load(opts);
    return this[DRAW_CONTEXT](
      doc.snapshot,
      documentTail(doc).map((entry) => entry.message),
    );
  }

  /** What `retrieve` returns for a snapshot and the messages after it (see `DRAW_CONTEXT`). */
  [DRAW_CONTEXT](snapshot: Snapshot | null, messages: readonly Message[]): Message[] {
    return storeContext(this.rules.summaryPolicy, snapshot, messages);
  }

  /**
   * Appends the batch in one {@link update}; with an idempotency key, the key is checked and
   * remembered (with the batch's digest) in that same atomic step, so two racing saves with one
   * key store the batch once; the key with other messages is `IdempotencyKeyReusedError`.
   * An empty batch writes nothing (a key is then only looked up, not remembered).
   */
  async save(messages: readonly Message[], opts?: SaveOptions): Promise<SaveResult> {
    const batch = deepFreeze(validateMessages(messages));
    const key = opts?.idempotencyKey;
    if (key !== undefined) assertIdempotencyKey(key);
    const savedAt = batchSavedAt(opts, this.now);
    throwIfAborted(opts);
    if (batch.length === 0) {
      if (key === undefined) return EMPTY_SAVE_RESULT;
      const seen = findIdempotencyRecord((await this.load(opts)).keys, key);
      return seen ? replayedResult(seen) : EMPTY_SAVE_RESULT;
    }
    const digest = key === undefined ? undefined : batchDigest(batch);
    let result: SaveResult = EMPTY_SAVE_RESULT;
    // The last run that wrote, and what a run found under the key.
    let planned: SaveResult | null = null;
    let found: SaveResult | null = null;
    await this.update(
      (doc, unknownOutcome) => {
        // May run more than once (a store retrying a compare-and-swap): the last run is what counts.
        const outcome = saveToDocument(doc, batch, {
          capacity: this.rules.capacity,
          idempotencyKey: key,
          session: this.sessionId,
          digest,
          savedAt,
        });
        if (outcome.doc === null) {
          found = outcome.result;
          // The key at the cursors this call's unanswered write planned: that write was stored,
          // by this call. (Another call with the same key racing on that revision looks the same.)
          result =
            unknownOutcome && planned && sameCursors(planned, found)
              ? { ...found, replayed: false }
              : found;
          return null;
        }
        // Found before and gone now: the key left the window since, the batch is stored.
        if (found) return null;
        if (unknownOutcome && planned && !provesNotStored(doc, planned, batch)) {
          throw unknownOutcome.error;
        }
        planned = result = outcome.result;
        return outcome.doc;
      },
      { signal: opts?.signal, idempotent: key !== undefined },
    );
    await this.rules.summaryPolicy?.afterSave(result, this.summaryTarget(), opts);
    return result;
  }

  async loadSnapshot(opts?: CallOptions): Promise<SnapshotState> {
    throwIfAborted(opts);
    const doc = await this.load(opts);
    return { snapshot: doc.snapshot, tail: documentTail(doc) };
  }

  async entries(query?: EntriesQuery, opts?: CallOptions): Promise<Entry[]> {
    throwIfAborted(opts);
    return documentEntriesPage(await this.load(opts), query);
  }

  /** @throws SnapshotsUnsupportedError when the store has the deprecated `summarization` option. */
  async saveSnapshot(
    snapshot: Snapshot,
    upTo: Cursor,
    prev: StoredSnapshot | null,
    opts?: CallOptions,
  ): Promise<StoredSnapshot> {
    if (this.rules.summaryPolicy) throw new SnapshotsUnsupportedError(this.sessionId);
    const write = { snapshot, upTo, prev, prune: this.rules.pruneCompacted };
    return (await this.writeSnapshot(write, opts))!;
  }

  /**
   * The one snapshot write, in one {@link update}: `saveSnapshot`'s and the summary policy's.
   * @returns null when `write.covers` no longer matched (nothing written).
   */
  private async writeSnapshot(
    write: SnapshotWrite,
    opts?: CallOptions,
  ): Promise<StoredSnapshot | null> {
    assertStorableSummary(write.snapshot.summary);
    const pinned = deepFreeze(validateMessages(write.snapshot.pinned ?? [], 'snapshot.pinned'));
    throwIfAborted(opts);
    let stored: StoredSnapshot | null = null;
    await this.update((doc) => {
      // May run more than once (a compare-and-swap retried): the last run is what counts.
      stored = null;
      if (write.covers && !stillCovers(documentTail(doc), write.covers, write.upTo)) return null;
      const swapped = snapshotDocument(
        this.sessionId,
        doc,
        { ...write.snapshot, pinned },
        write.upTo,
        write.prev,
        { prune: write.prune, now: this.now() },
      );
      stored = swapped.stored;
      return swapped.doc;
    }, opts);
    return stored;
  }

  /** What the summary policy reads and writes through. */
  private summaryTarget(): SummaryTarget {
    return {
      loadSnapshot: (opts) => this.loadSnapshot(opts),
      writeSnapshot: (write, opts) => this.writeSnapshot(write, opts),
    };
  }

  /** See `CoveredLogPruning`: drops the kept messages the latest snapshot covers, in one update. */
  async pruneCovered(opts?: PruneCoveredOptions): Promise<number> {
    throwIfAborted(opts);
    let dropped = 0;
    let changed = false;
    const expected = opts?.ifUnchanged;
    await this.update((doc) => {
      // May run more than once (a compare-and-swap retried): the last run is what counts.
      changed = expected !== undefined && !sameSessionContent(documentFacts(doc), expected);
      if (changed) return null;
      const upTo = doc.snapshot?.upTo;
      dropped =
        upTo === undefined || keepsWholeLog(doc.meta)
          ? 0
          : Math.min(doc.messages.length, Math.max(0, upTo - firstCursor(doc) + 1));
      return dropped === 0 ? null : dropOldest(doc, dropped);
    }, opts);
    if (changed) throw new SessionChangedError(this.sessionId);
    return dropped;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.update((doc) => setDocumentMeta(doc, key, value));
  }

  async meta(): Promise<Record<string, string>> {
    return { ...(await this.load()).meta };
  }
}

function sameCursors(a: SaveResult, b: SaveResult): boolean {
  return a.first === b.first && a.last === b.last;
}

/** What a document holds of a session, as `sameSessionContent` compares it. */
function documentFacts(doc: SessionDocument) {
  return {
    saved: doc.saved,
    stored: doc.messages.length,
    snapshotUpTo: doc.snapshot?.upTo ?? null,
    meta: doc.meta,
  };
}

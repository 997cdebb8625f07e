import { sessionInfo } from '../core/session-info';
import { throwIfAborted } from '../core/abort';
import type { SessionInfo } from '../core/backend.interface';
import type { ErasedSession } from '../core/resource-erase';
import type { StoredSessionCheck } from '../core/session-delete';
import { DocumentStore, type DocumentChange } from '../core/document-store';
import { summaryPolicyOf, type SummarizationStoreOptions } from '../core/legacy-summarization';
import type { CallOptions } from '../core/memory.interface';
import { EMPTY_DOCUMENT, type SessionDocument } from '../core/session-document';

/** Options of {@link SimpleMemory}. */
export interface SimpleMemoryOptions extends SummarizationStoreOptions {
  /** Drop the messages a snapshot covers when it is saved. Default false. */
  pruneCompacted?: boolean;
  /** The session id used in error messages. Default `"simple"`. */
  sessionId?: string;
  /** Clock for `updatedAt` and snapshot times; tests inject one. */
  now?: () => Date;
}

/**
 * In-process memory keeping the newest `capacity` messages (FIFO eviction). Cursors keep counting
 * through eviction, snapshots and metadata are kept, and nothing outlives the process.
 * Stored messages are frozen: `retrieve` hands them out without copying.
 */
export class SimpleMemory extends DocumentStore {
  private doc: SessionDocument = EMPTY_DOCUMENT;
  private updatedAt: Date | null = null;

  /** @throws RangeError when `capacity` is below 1, or the `summarization` options are out of range. */
  constructor(
    readonly capacity: number,
    opts: SimpleMemoryOptions = {},
  ) {
    if (!(capacity >= 1))
      throw new RangeError(`SimpleMemory capacity must be at least 1, got ${capacity}`);
    super(opts.sessionId ?? 'simple', {
      capacity,
      pruneCompacted: opts.pruneCompacted ?? false,
      now: opts.now ?? (() => new Date()),
      summaryPolicy: summaryPolicyOf(opts),
    });
  }

  async clear(opts?: CallOptions): Promise<void> {
    throwIfAborted(opts);
    this.doc = EMPTY_DOCUMENT;
    this.updatedAt = null;
  }

  /**
   * Clears the session when `belongs(meta, info)` holds, in one synchronous step (no write can
   * come between the check and the clear).
   * @returns the messages it kept, or null when there was no session or it does not belong.
   */
  eraseIf(belongs: StoredSessionCheck): ErasedSession {
    if (!this.updatedAt || !belongs(this.doc.meta, this.info())) return null;
    const messages = this.doc.messages.length;
    this.doc = EMPTY_DOCUMENT;
    this.updatedAt = null;
    return { messages };
  }

  /** What a session list shows; null while nothing was ever written (or after `clear`). */
  info(): SessionInfo | null {
    if (!this.updatedAt) return null;
    return sessionInfo(this.sessionId, {
      saved: this.doc.saved,
      stored: this.doc.messages.length,
      updatedAt: this.updatedAt,
      snapshotUpTo: this.doc.snapshot?.upTo ?? null,
      meta: this.doc.meta,
    });
  }

  protected async load(): Promise<SessionDocument> {
    return this.doc;
  }

  // Read, change and write happen in one synchronous step: no other writer can come between.
  protected async update(change: DocumentChange): Promise<SessionDocument | null> {
    const next = change(this.doc);
    if (next === null) return null;
    this.doc = next;
    this.updatedAt = this.now();
    return next;
  }
}

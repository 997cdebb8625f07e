import { throwIfAborted } from '../core/abort';
import type { SessionInfo } from '../core/backend.interface';
import { deepFreeze } from '../core/deep-freeze';
import { SnapshotsUnsupportedError } from '../core/errors';
import { LegacySummarization, type SummarizationOptions } from '../core/legacy-summarization';
import type {
  CallOptions,
  Cursor,
  EntriesQuery,
  Entry,
  Snapshot,
  SnapshotState,
  SessionStore,
  StoredSnapshot,
} from '../core/memory.interface';
import type { Message } from '../core/message';
import { decodeMessages } from '../core/message.codec';
import {
  EMPTY_DOCUMENT,
  appendToDocument,
  documentContext,
  documentEntries,
  documentEntriesPage,
  documentTail,
  replaceDocumentRange,
  setDocumentMeta,
  snapshotDocument,
  type SessionDocument,
} from '../core/session-document';

export interface SimpleMemoryOptions {
  /** Drop the messages a snapshot covers when it is saved. Default false. */
  pruneCompacted?: boolean;
  /** @deprecated Use compaction instead; see {@link SummarizationOptions}. */
  summarization?: SummarizationOptions;
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
export class SimpleMemory implements SessionStore {
  private doc: SessionDocument = EMPTY_DOCUMENT;
  private updatedAt: Date | null = null;
  private readonly legacy: LegacySummarization | null;
  private readonly sessionId: string;
  private readonly now: () => Date;

  /** @throws RangeError when `capacity` is below 1. */
  constructor(
    readonly capacity: number,
    private readonly opts: SimpleMemoryOptions = {},
  ) {
    if (!(capacity >= 1)) throw new RangeError(`SimpleMemory capacity must be at least 1, got ${capacity}`);
    this.legacy = opts.summarization ? new LegacySummarization(opts.summarization) : null;
    this.sessionId = opts.sessionId ?? 'simple';
    this.now = opts.now ?? (() => new Date());
  }

  async retrieve(_query?: string, opts?: CallOptions): Promise<Message[]> {
    throwIfAborted(opts);
    return documentContext(this.doc);
  }

  async save(messages: readonly Message[], opts?: CallOptions): Promise<void> {
    const batch = deepFreeze(decodeMessages(messages));
    throwIfAborted(opts);
    if (batch.length === 0) return;
    this.write(appendToDocument(this.doc, batch, this.capacity));
    if (this.legacy) await this.summarizeIfDue(this.legacy, opts);
  }

  async clear(opts?: CallOptions): Promise<void> {
    throwIfAborted(opts);
    this.doc = EMPTY_DOCUMENT;
    this.updatedAt = null;
  }

  async loadSnapshot(opts?: CallOptions): Promise<SnapshotState> {
    throwIfAborted(opts);
    return { snapshot: this.doc.snapshot, tail: documentTail(this.doc) };
  }

  async entries(query?: EntriesQuery, opts?: CallOptions): Promise<Entry[]> {
    throwIfAborted(opts);
    return documentEntriesPage(this.doc, query);
  }

  async saveSnapshot(
    snapshot: Snapshot,
    upTo: Cursor,
    prev: StoredSnapshot | null,
    opts?: CallOptions,
  ): Promise<StoredSnapshot> {
    if (this.legacy) throw new SnapshotsUnsupportedError(this.sessionId);
    const pinned = deepFreeze(decodeMessages(snapshot.pinned ?? [], 'snapshot.pinned'));
    throwIfAborted(opts);
    const { doc, stored } = snapshotDocument(this.sessionId, this.doc, { ...snapshot, pinned }, upTo, prev, {
      prune: this.opts.pruneCompacted ?? false,
      now: this.now(),
    });
    this.write(doc);
    return stored;
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.write(setDocumentMeta(this.doc, key, value));
  }

  async meta(): Promise<Record<string, string>> {
    return { ...this.doc.meta };
  }

  /** What a session list shows; null while nothing was ever written (or after `clear`). */
  info(): SessionInfo | null {
    if (!this.updatedAt) return null;
    return {
      id: this.sessionId,
      messages: this.doc.saved,
      stored: this.doc.messages.length,
      updatedAt: this.updatedAt.toISOString(),
      hasSnapshot: this.doc.snapshot !== null,
      snapshotUpTo: this.doc.snapshot?.upTo ?? null,
      meta: { ...this.doc.meta },
    };
  }

  private write(doc: SessionDocument): void {
    this.doc = doc;
    this.updatedAt = this.now();
  }

  private async summarizeIfDue(legacy: LegacySummarization, opts?: CallOptions): Promise<void> {
    const due = legacy.plan(documentEntries(this.doc));
    if (!due) return;
    try {
      const summary = deepFreeze(await legacy.summarize(due, opts));
      const rewritten = replaceDocumentRange(this.doc, due[0]!.cursor, due[due.length - 1]!.cursor, summary);
      if (rewritten) this.write(rewritten);
    } catch (error) {
      legacy.reportError(error);
    }
  }
}

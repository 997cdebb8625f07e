import type { KV } from 'nats';
import { throwIfAborted } from '../core/abort';
import type { SessionInfo } from '../core/backend.interface';
import { DocumentStore, type DocumentChange, type UpdateOptions } from '../core/document-store';
import { summaryPolicyOf, type SummarizationStoreOptions } from '../core/legacy-summarization';
import type { CallOptions } from '../core/memory.interface';
import type { SessionDocument } from '../core/session-document';
import { assertSessionId } from '../core/session-id';
import type { StoreObserver } from '../core/store-observer.interface';
import { isWrongLastSequence, natsRequest } from './nats-request.error';
import { ConcurrentUpdateError } from '../core/errors';
import type { ErasedSession } from '../core/resource-erase';
import type { StoredSessionCheck } from '../core/session-delete';
import { keySidecarOf, loadedSession, sessionInfoOf } from './nats-session-value';
import type { KnownSession, NatsSessionWriter, SessionWriterOptions } from './nats-session.writer';
import { withSessionWriter } from './nats-session-writers';
import { DEFAULT_WRITE_BUDGET_MS } from './nats.defaults';

export { DEFAULT_WRITE_BUDGET_MS } from './nats.defaults';

/** Options of `NatsMemory` (one session in a KV bucket). */
export interface NatsMemoryOptions extends SummarizationStoreOptions {
  /** Drop the messages a snapshot covers when it is saved. Default **true**: a session must fit one NATS message. */
  pruneCompacted?: boolean;
  /**
   * The server's `max_payload` in bytes. Default: what the KV handle's connection reports
   * (`nc.info.max_payload`), else 1 MiB.
   */
  maxPayload?: number;
  /**
   * The bucket's max value size in bytes (`null`: none). Default: read from the bucket's status on
   * the first write. The backend passes the value it read once, saving a request per `open`.
   */
  maxValueSize?: number | null;
  /**
   * How long one write keeps retrying, in milliseconds: compare-and-swap races lost to other
   * processes (then `ConcurrentUpdateError`, nothing stored) and requests the server did not answer
   * (then `NatsRequestError`). A write sent but not answered is only sent again unchanged, so it is
   * stored at most once. Retries wait a random time (full jitter) that grows with each retry. A
   * write answers within about this budget plus one request timeout. Default
   * {@link DEFAULT_WRITE_BUDGET_MS}.
   */
  writeBudgetMs?: number;
  /** Clock for snapshot times (`updatedAt` is the KV entry's server time). */
  now?: () => Date;
  /** Told about compare-and-swap retries and each written session's size, for metrics. */
  observer?: StoreObserver;
}

/** Reads and revision-checked purges an erase tries before it gives up on a session that keeps changing. */
const ERASE_ATTEMPTS = 20;

/**
 * A session kept in one NATS JetStream KV key (the session id, used as is). The value is compact
 * JSON: the plain array of messages while the session has no snapshot and no metadata (what Phero
 * reads and writes), else the object `{ messages, snapshot, meta, saved }`; both load, and so do
 * Phero's values (Go field names, `null` lists, `null` after a clear). Several processes can share
 * a session. Idempotency keys do not change the form: in the array they are marks on the first
 * message of each keyed batch, written in the same compare-and-swap, with a copy in the key
 * `_idempotency.<id>` (see `keySidecarOf`) that survives a Phero process rewriting the array.
 *
 * Every write is a compare-and-swap on the key's revision (`kv.create` for a new key,
 * `kv.update(key, value, revision)` otherwise). Writes of one instance go through a queue: what
 * waits while a write is in flight is combined into the next compare-and-swap (a group commit: one
 * revision per batch, each caller's messages contiguous and in its order, each caller answered
 * with its own result or error). A batch first tries the revision this instance last saw (one
 * round trip when nobody else wrote); on a race lost to another process it reloads, reapplies and
 * retries with full-jitter backoff for up to `writeBudgetMs`, then throws `ConcurrentUpdateError`
 * having stored nothing.
 *
 * Size: a session must fit one NATS message. Before sending, the write's size (value plus the
 * header carrying the revision) is compared with the limit, the server's `max_payload` or the
 * bucket's max value size if smaller: over it, `SessionTooLargeError` for the change that made
 * it too large, and nothing of that change is sent.
 *
 * A value that does not decode raises `CorruptSessionError`; writes never overwrite it, only
 * {@link clear} (which purges the key) does. Reads fail with `NatsRequestError` within the KV
 * handle's timeout. A write the server did not answer (a stream leader being elected, a server
 * going away) is retried within `writeBudgetMs`: a write sent but not answered is sent again
 * unchanged (same revision, same message id: stored at most once); if a write on that revision
 * turns out stored, a save with an idempotency key decides on a fresh read whether it was its own
 * (its key, or what is stored at its cursors: `provesNotStored`), and every other change, or a
 * save that cannot tell, fails with `NatsRequestError`, stored or not.
 */
export class NatsMemory extends DocumentStore {
  /** What this instance last read or wrote: seeds the process's writer of the session. */
  private known: KnownSession | null = null;
  private readonly writerOptions: SessionWriterOptions;

  private constructor(
    /** The bucket's KV handle. */
    readonly kv: KV,
    /** The session id, which is also the key. */
    sessionId: string,
    private readonly opts: NatsMemoryOptions,
  ) {
    super(sessionId, {
      pruneCompacted: opts.pruneCompacted ?? true,
      now: opts.now ?? (() => new Date()),
      summaryPolicy: summaryPolicyOf(opts),
    });
    const writeBudgetMs = opts.writeBudgetMs ?? DEFAULT_WRITE_BUDGET_MS;
    if (!(writeBudgetMs >= 0)) {
      throw new RangeError(
        `writeBudgetMs must be a number of milliseconds >= 0, got ${writeBudgetMs}`,
      );
    }
    this.writerOptions = {
      writeBudgetMs,
      maxPayload: opts.maxPayload,
      maxValueSize: opts.maxValueSize,
      observer: opts.observer,
    };
  }

  /**
   * A memory over key `sessionId` of `kv`. Opening reads nothing, so a corrupt value can still be cleared.
   * @throws InvalidSessionIdError before any I/O when the id is not a valid session id.
   * @throws RangeError when the `summarization` options are out of range.
   */
  static async open(kv: KV, sessionId: string, opts: NatsMemoryOptions = {}): Promise<NatsMemory> {
    assertSessionId(sessionId);
    return new NatsMemory(kv, sessionId, opts);
  }

  /**
   * What a session list shows about key `sessionId` of `kv`; null when the key holds no session.
   * @throws CorruptSessionError when the value does not decode.
   */
  static async inspect(kv: KV, sessionId: string): Promise<SessionInfo | null> {
    assertSessionId(sessionId);
    const entry = await natsRequest('inspect', sessionId, () => kv.get(sessionId));
    return sessionInfoOf(sessionId, loadedSession(sessionId, entry));
  }

  /** Purges the key (also a corrupt value) and its key copy: the session is then as if new. */
  async clear(opts?: CallOptions): Promise<void> {
    throwIfAborted(opts);
    await this.withWriter((writer) =>
      writer.exclusive(async () => {
        await natsRequest('clear', this.sessionId, () => this.kv.purge(this.sessionId));
        writer.known = null;
        await this.purgeKeyCopy('clear');
      }),
    );
  }

  /**
   * Purges the session's key copy (see `keySidecarOf`), after the session itself: a copy left by a
   * crash in between only names cursors whose messages are gone, which a later read ignores.
   */
  private async purgeKeyCopy(operation: string): Promise<void> {
    await natsRequest(operation, this.sessionId, () => this.kv.purge(keySidecarOf(this.sessionId)));
  }

  /**
   * Purges the key when `belongs(meta, info)` holds for the value as stored now. The purge is checked
   * against the revision read (`previousSeq`): a save of another process that lands in between
   * makes it fail, and the key is read and checked again, so what is purged is always what was
   * checked. This process's writes of the session wait meanwhile.
   * @returns the messages it kept, or null when there was no session or it does not belong.
   * @throws ConcurrentUpdateError when the key changed during each of {@link ERASE_ATTEMPTS} tries.
   */
  async eraseIf(belongs: StoredSessionCheck): Promise<ErasedSession> {
    let erased: ErasedSession = null;
    await this.withWriter((writer) =>
      writer.exclusive(async () => {
        erased = await this.purgeIf(belongs);
        if (erased) {
          writer.known = null;
          await this.purgeKeyCopy('erase');
        }
      }),
    );
    return erased;
  }

  /** One erase: read, check, revision-checked purge; read again when another write came between. */
  private async purgeIf(belongs: StoredSessionCheck): Promise<ErasedSession> {
    for (let attempt = 1; attempt <= ERASE_ATTEMPTS; attempt++) {
      const entry = await natsRequest('erase', this.sessionId, () => this.kv.get(this.sessionId));
      const loaded = loadedSession(this.sessionId, entry);
      if (!loaded.exists || !belongs(loaded.doc.meta, sessionInfoOf(this.sessionId, loaded))) {
        return null;
      }
      try {
        await natsRequest('erase', this.sessionId, () =>
          this.kv.purge(this.sessionId, { previousSeq: loaded.revision }),
        );
      } catch (error) {
        if (isWrongLastSequence(error)) continue;
        throw error;
      }
      return { messages: loaded.doc.messages.length };
    }
    throw new ConcurrentUpdateError(this.sessionId, ERASE_ATTEMPTS);
  }

  /** The key as it is now, decoded; remembered as the base of the next save. */
  protected async load(): Promise<SessionDocument> {
    return this.withWriter(async (writer) => (await writer.loadSession()).doc);
  }

  /**
   * Queues `change` for the process's next group commit on this session. `change` returning null
   * writes nothing. Only a lost race is retried; `change`'s own errors (conflicts, invalid
   * cursors), a corrupt value and a value over the limit are thrown to that caller alone, decided
   * on a fresh read.
   * @returns the document right after this change, or null when it wrote nothing.
   */
  protected update(change: DocumentChange, opts?: UpdateOptions): Promise<SessionDocument | null> {
    return this.withWriter((writer) => writer.change(change, opts));
  }

  /** Runs `fn` with the process's writer of this session, sharing what this instance last saw. */
  private withWriter<T>(fn: (writer: NatsSessionWriter) => Promise<T>): Promise<T> {
    return withSessionWriter(this.kv, this.sessionId, this.writerOptions, async (writer) => {
      if (!writer.known && this.known) writer.known = this.known;
      try {
        return await fn(writer);
      } finally {
        this.known = writer.known;
      }
    });
  }
}

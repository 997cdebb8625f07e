import type { KV } from 'nats';
import { throwIfAborted } from '../core/abort';
import type { SessionInfo } from '../core/backend.interface';
import { deepFreeze } from '../core/deep-freeze';
import { DocumentStore, type DocumentChange } from '../core/document-store';
import { ConcurrentUpdateError, SessionTooLargeError } from '../core/errors';
import type { SummarizationOptions } from '../core/legacy-summarization';
import type { CallOptions } from '../core/memory.interface';
import type { SessionDocument } from '../core/session-document';
import { assertSessionId } from '../core/session-id';
import { isWrongLastSequence, natsRequest } from './nats-request.error';
import {
  encodeSessionValue,
  loadedSession,
  sessionInfoOf,
  type LoadedSession,
} from './nats-session-value';
import {
  DEFAULT_MAX_PAYLOAD_BYTES,
  bucketMaxValueSize,
  connectionMaxPayload,
  effectiveLimit,
  writeSizeBytes,
} from './nats-size-limit';

/** Compare-and-swap attempts on fresh reads before a write gives up with `ConcurrentUpdateError`. */
export const NATS_WRITE_ATTEMPTS = 5;
const BACKOFF_BASE_MS = 5;
const BACKOFF_CAP_MS = 250;

export interface NatsMemoryOptions {
  /** Drop the messages a snapshot covers when it is saved. Default **true**: a session must fit one NATS message. */
  pruneCompacted?: boolean;
  /** @deprecated Use compaction instead; see {@link SummarizationOptions}. */
  summarization?: SummarizationOptions;
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
  /** Clock for snapshot times (`updatedAt` is the KV entry's server time). */
  now?: () => Date;
}

/** The state this instance last read or wrote, with its revision: a save tries it first. */
interface Known {
  revision: number;
  doc: SessionDocument;
}

/**
 * A session kept in one NATS JetStream KV key (the session id, used as is): the value is the JSON
 * envelope `{ messages, saved, snapshot, meta }`; plain JSON arrays of messages, as Phero writes
 * them, load as well. Several processes can share a session.
 *
 * Every write is a compare-and-swap on the key's revision (`kv.create` for a new key,
 * `kv.update(key, value, revision)` otherwise). On a lost race it reloads and retries, up to
 * {@link NATS_WRITE_ATTEMPTS} times with jittered exponential backoff, then throws
 * `ConcurrentUpdateError` having stored nothing. A save first tries the revision this instance
 * last saw (one round trip when nobody else wrote); that try does not count as an attempt.
 *
 * Size: a session must fit one NATS message. Before sending, the write's size (value plus the
 * header carrying the revision) is compared with the limit, the server's `max_payload` or the
 * bucket's max value size if smaller: over it, `SessionTooLargeError` and nothing is sent.
 *
 * A value that does not decode raises `CorruptSessionError`; writes never overwrite it, only
 * {@link clear} (which purges the key) does. Failures of the connection or server surface as
 * `NatsRequestError` within the KV handle's timeout. A write that times out while the server is
 * unreachable is ambiguous: the client may deliver it once it reconnects.
 */
export class NatsMemory extends DocumentStore {
  private known: Known | null = null;
  /** Writes of this instance run one at a time: they would only lose races against each other. */
  private queue: Promise<unknown> = Promise.resolve();
  private maxValueSize: number | null | undefined;

  private constructor(
    /** The bucket's KV handle. */
    readonly kv: KV,
    /** The session id, which is also the key. */
    sessionId: string,
    private readonly opts: NatsMemoryOptions,
  ) {
    super(sessionId, {
      pruneCompacted: opts.pruneCompacted ?? true,
      summarization: opts.summarization,
      now: opts.now ?? (() => new Date()),
    });
    this.maxValueSize = opts.maxValueSize;
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

  /** Purges the key (also a corrupt value): the session is then as if new. */
  async clear(opts?: CallOptions): Promise<void> {
    throwIfAborted(opts);
    const run = this.queue.then(async () => {
      await natsRequest('clear', this.sessionId, () => this.kv.purge(this.sessionId));
      this.known = null;
    });
    this.queue = run.catch(() => undefined);
    await run;
  }

  /** The key as it is now, decoded; remembered as the base of the next save. */
  protected async load(): Promise<SessionDocument> {
    return (await this.loadSession()).doc;
  }

  private async loadSession(): Promise<LoadedSession> {
    const entry = await natsRequest('read', this.sessionId, () => this.kv.get(this.sessionId));
    const loaded = loadedSession(this.sessionId, entry);
    const doc = deepFreeze(loaded.doc);
    this.known = { revision: loaded.revision, doc };
    return { ...loaded, doc };
  }

  /**
   * Queued compare-and-swap of `change` applied to the stored document. `change` returning null writes
   * nothing. Only a lost race is retried; `change`'s own errors (conflicts, invalid cursors), a
   * corrupt value and a value over the limit are thrown as they are, decided on a fresh read.
   * @returns the document written, or null when nothing was.
   */
  protected update(change: DocumentChange, opts?: CallOptions): Promise<SessionDocument | null> {
    const run = this.queue.then(() => this.compareAndSwap(change, opts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async compareAndSwap(
    change: DocumentChange,
    opts?: CallOptions,
  ): Promise<SessionDocument | null> {
    const known = this.known;
    if (known) {
      // A tentative write on what this instance last saw: anything but a clean success is
      // decided again on a fresh read below, so a stale view never raises an error.
      let next: SessionDocument | null = null;
      try {
        next = change(known.doc);
      } catch {
        next = null;
      }
      if (next) {
        const value = encodeSessionValue(next);
        if (writeSizeBytes(value.length, known.revision) <= (await this.limitBytes())) {
          throwIfAborted(opts);
          if (await this.tryWrite(known.revision, value, next)) return this.known!.doc;
        }
      }
    }
    for (let attempt = 1; attempt <= NATS_WRITE_ATTEMPTS; attempt++) {
      throwIfAborted(opts);
      const { doc, revision } = await this.loadSession();
      const next = change(doc);
      if (next === null) return null;
      const value = encodeSessionValue(next);
      const size = writeSizeBytes(value.length, revision);
      const limit = await this.limitBytes();
      if (size > limit) throw new SessionTooLargeError(this.sessionId, size, limit);
      throwIfAborted(opts);
      if (await this.tryWrite(revision, value, next)) return this.known!.doc;
      if (attempt < NATS_WRITE_ATTEMPTS) await backoff(attempt);
    }
    throw new ConcurrentUpdateError(this.sessionId, NATS_WRITE_ATTEMPTS);
  }

  /** One compare-and-swap write. False when another writer changed the key first. */
  private async tryWrite(
    revision: number,
    value: Uint8Array,
    doc: SessionDocument,
  ): Promise<boolean> {
    try {
      const written = await natsRequest('write', this.sessionId, () =>
        revision === 0
          ? this.kv.create(this.sessionId, value)
          : this.kv.update(this.sessionId, value, revision),
      );
      this.known = { revision: written, doc: deepFreeze(doc) };
      return true;
    } catch (error) {
      if (isWrongLastSequence(error)) return false;
      throw error;
    }
  }

  private async limitBytes(): Promise<number> {
    if (this.maxValueSize === undefined) {
      const read = await natsRequest('read the bucket status', this.sessionId, () =>
        bucketMaxValueSize(this.kv),
      );
      this.maxValueSize = read ?? null;
    }
    const maxPayload =
      this.opts.maxPayload ?? connectionMaxPayload(this.kv) ?? DEFAULT_MAX_PAYLOAD_BYTES;
    return effectiveLimit(maxPayload, this.maxValueSize ?? undefined);
  }
}

/** Full jitter: a random wait up to `base * 2^(attempt-1)`, capped. */
function backoff(attempt: number): Promise<void> {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

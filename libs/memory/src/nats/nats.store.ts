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
import { WriteQueue, type PendingChange } from './nats-write.queue';
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

/** Default time a write keeps retrying lost compare-and-swap races, in milliseconds. */
export const DEFAULT_WRITE_BUDGET_MS = 10_000;
/** Full-jitter backoff between retries: up to `BASE * 2^(retry-1)`, at most `CAP`. */
const BACKOFF_BASE_MS = 4;
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
  /**
   * How long one write keeps retrying compare-and-swap races lost to other processes before it
   * gives up with `ConcurrentUpdateError` (storing nothing), in milliseconds. Retries wait a random
   * time (full jitter) that grows with each lost race. Default {@link DEFAULT_WRITE_BUDGET_MS}.
   */
  writeBudgetMs?: number;
  /** Clock for snapshot times (`updatedAt` is the KV entry's server time). */
  now?: () => Date;
}

/** The state this instance last read or wrote, with its revision: a save tries it first. */
interface Known {
  revision: number;
  doc: SessionDocument;
}

/**
 * A session kept in one NATS JetStream KV key (the session id, used as is). The value is compact
 * JSON: the plain array of messages while the session has no snapshot and no metadata (what Phero
 * reads and writes), else the object `{ messages, snapshot, meta, saved }`; both load, and so do
 * Phero's values (Go field names, `null` lists, `null` after a clear). Several processes can share
 * a session.
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
 * {@link clear} (which purges the key) does. Failures of the connection or server surface as
 * `NatsRequestError` within the KV handle's timeout. A write that times out while the server is
 * unreachable is ambiguous: the client may deliver it once it reconnects.
 */
export class NatsMemory extends DocumentStore {
  private known: Known | null = null;
  /** The last batch lost a race to another process: the next one starts from a fresh read. */
  private contended = false;
  private readonly writes = new WriteQueue((batch) => this.commit(batch));
  private maxValueSize: number | null | undefined;
  private readonly writeBudgetMs: number;

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
    this.writeBudgetMs = opts.writeBudgetMs ?? DEFAULT_WRITE_BUDGET_MS;
    if (!(this.writeBudgetMs >= 0)) {
      throw new RangeError(
        `writeBudgetMs must be a number of milliseconds >= 0, got ${this.writeBudgetMs}`,
      );
    }
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
    await this.writes.exclusive(async () => {
      await natsRequest('clear', this.sessionId, () => this.kv.purge(this.sessionId));
      this.known = null;
    });
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
   * Queues `change` for the next group commit. `change` returning null writes nothing. Only a lost
   * race is retried; `change`'s own errors (conflicts, invalid cursors), a corrupt value and a
   * value over the limit are thrown to that caller alone, decided on a fresh read.
   * @returns the document right after this change, or null when it wrote nothing.
   */
  protected update(change: DocumentChange, opts?: CallOptions): Promise<SessionDocument | null> {
    return this.writes.change(change, opts);
  }

  /**
   * Writes one batch with one compare-and-swap and settles every caller in it. The first try
   * applies the batch to what this instance last saw; any doubt (an error of a change, a size over
   * the limit, a lost race) is decided again on a fresh read.
   */
  private async commit(batch: PendingChange[]): Promise<void> {
    const started = performance.now();
    let live = batch;
    const fail = (error: unknown) => {
      for (const pending of live) pending.reject(error);
    };
    // The first try is on what this instance last saw; later ones on a fresh read.
    let base: Known | null = this.contended ? null : this.known;
    let tentative = base !== null;
    this.contended = false;
    for (let lost = 0; ;) {
      live = live.filter((pending) => {
        if (!pending.opts?.signal?.aborted) return true;
        pending.reject(pending.opts.signal.reason ?? new Error('the write was aborted'));
        return false;
      });
      if (live.length === 0) return;
      try {
        if (base === null) base = await this.loadSession();
        const limit = await this.limitBytes();
        const plan = planBatch(base.doc, live, base.revision, limit, this.sessionId, !tentative);
        if (tentative && (plan.doubtful || plan.value === null)) {
          base = null;
          tentative = false;
          continue;
        }
        if (plan.value === null) return settle(live, plan.outcomes);
        if (await this.tryWrite(base.revision, plan.value, plan.doc)) {
          return settle(live, plan.outcomes);
        }
      } catch (error) {
        return fail(error);
      }
      base = null;
      if (tentative) {
        // What this instance saw was stale: not contention yet, reload at once.
        tentative = false;
        continue;
      }
      lost++;
      this.contended = true;
      if (performance.now() - started >= this.writeBudgetMs) {
        return fail(new ConcurrentUpdateError(this.sessionId, lost));
      }
      await backoff(lost);
    }
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

/** What one batch does to a document: per caller its document or error, and the value to write. */
interface BatchPlan {
  outcomes: Array<{ doc: SessionDocument | null } | { error: unknown }>;
  doc: SessionDocument;
  /** Null when no change in the batch changed the document. */
  value: Uint8Array | null;
  /** A change threw or made the value too large: not to be trusted on a stale read. */
  doubtful: boolean;
}

/**
 * Applies the batch's changes in order to `doc`. A change that throws, or that makes the value
 * exceed `limit` (checked only when the whole batch does not fit), is left out and answered with
 * its error; the others still apply.
 */
function planBatch(
  doc: SessionDocument,
  batch: readonly PendingChange[],
  revision: number,
  limit: number,
  session: string,
  final: boolean,
): BatchPlan {
  const apply = (checkEach: boolean): BatchPlan => {
    const outcomes: BatchPlan['outcomes'] = [];
    let current = doc;
    let doubtful = false;
    for (const pending of batch) {
      let next: SessionDocument | null;
      try {
        next = pending.change(current);
      } catch (error) {
        outcomes.push({ error });
        doubtful = true;
        continue;
      }
      if (next !== null && checkEach) {
        const size = writeSizeBytes(encodeSessionValue(next).length, revision);
        if (size > limit) {
          outcomes.push({ error: new SessionTooLargeError(session, size, limit) });
          doubtful = true;
          continue;
        }
      }
      if (next !== null) current = next;
      outcomes.push({ doc: next });
    }
    const value = current === doc ? null : encodeSessionValue(current);
    return { outcomes, doc: current, value, doubtful };
  };
  const whole = apply(false);
  if (whole.value === null || writeSizeBytes(whole.value.length, revision) <= limit) return whole;
  if (!final) return { ...whole, doubtful: true };
  return apply(true);
}

function settle(batch: readonly PendingChange[], outcomes: BatchPlan['outcomes']): void {
  batch.forEach((pending, i) => {
    const outcome = outcomes[i]!;
    if ('error' in outcome) pending.reject(outcome.error);
    else pending.resolve(outcome.doc);
  });
}

/** Full jitter: a random wait up to `BASE * 2^(retry-1)`, capped. */
function backoff(retry: number): Promise<void> {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (retry - 1));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

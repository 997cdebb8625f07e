import { setTimeout as delay } from 'node:timers/promises';
import { headers, type JetStreamClient, type KV, type MsgHdrs } from 'nats';
import { deepFreeze } from '../core/deep-freeze';
import type { DocumentChange } from '../core/document-store';
import { ConcurrentUpdateError } from '../core/errors';
import type { CallOptions } from '../core/memory.interface';
import type { SessionDocument } from '../core/session-document';
import { tellObserver, type StoreObserver } from '../core/store-observer.interface';
import { isWrongLastSequence, natsRequest } from './nats-request.error';
import { planBatch, rejectAll, settle, withoutAborted, type BatchPlan } from './nats-batch-plan';
import { isTransient, mayHaveBeenStored } from './nats-write-failures';
import {
  encodeKeySidecarValue,
  keySidecarOf,
  loadedSession,
  type LoadedSession,
} from './nats-session-value';
import { EMPTY_DOCUMENT, isPlainLog, mayHaveLostKeyMarks } from '../core/session-document';
import {
  bucketMaxValueSize,
  casMessageId,
  connectionMaxPayload,
  effectiveLimit,
  writeSizeBytes,
} from './nats-size-limit';
import { WriteQueue, type PendingChange } from './nats-write.queue';
import { DEFAULT_MAX_PAYLOAD_BYTES } from './nats.defaults';

/** Full-jitter backoff between retries: up to `BASE * 2^(retry-1)`, at most `CAP`. */
const BACKOFF_BASE_MS = 4;
const BACKOFF_CAP_MS = 250;

/** A revision of the session and its decoded document. */
export interface KnownSession {
  revision: number;
  doc: SessionDocument;
  /** See `LoadedSession.keyCopyStale`. */
  keyCopyStale?: boolean;
}

export interface SessionWriterOptions {
  /** See `NatsMemoryOptions.writeBudgetMs`. */
  writeBudgetMs: number;
  /** See `NatsMemoryOptions.maxPayload`. */
  maxPayload?: number;
  /** See `NatsMemoryOptions.maxValueSize`. */
  maxValueSize?: number | null;
  /** See `NatsMemoryOptions.observer`. */
  observer?: StoreObserver;
}

/**
 * Where a session's writes go: the JetStream client behind the KV handle, the key's subject and
 * the subject of its key copy (see `keySidecarOf`).
 */
interface WriteTarget {
  js: JetStreamClient;
  subject: string;
  sidecarSubject: string;
}

/**
 * The writes of one process to one session key (shared by every `NatsMemory` open on it through
 * the same KV handle): a queue that combines the changes waiting into one compare-and-swap per
 * batch (group commit), retried on lost races within a time budget.
 */
export class NatsSessionWriter {
  /** What this process last read or wrote: the first base a batch tries. */
  known: KnownSession | null = null;
  /** The stored size of `known`'s value, in bytes. */
  knownBytes = 0;
  /** The last batch lost a race to another process: the next one starts from a fresh read. */
  private contended = false;
  private readonly queue = new WriteQueue((batch) => this.commit(batch));
  private maxValueSize: number | null | undefined;
  private readonly target: WriteTarget;

  constructor(
    readonly kv: KV,
    readonly sessionId: string,
    private readonly opts: SessionWriterOptions,
  ) {
    this.maxValueSize = opts.maxValueSize;
    this.target = writeTarget(kv, sessionId);
  }

  /** Queues `change`; resolves with the document right after it once its batch is written. */
  change(change: DocumentChange, opts?: CallOptions): Promise<SessionDocument | null> {
    return this.queue.change(change, opts);
  }

  /** Runs `run` alone in the write order (a `clear`). */
  exclusive(run: () => Promise<void>): Promise<void> {
    return this.queue.exclusive(run);
  }

  /**
   * Reads the key now and remembers it as the base of the next batch. Its key copy is read too
   * only when the value is an array that lost its key marks (a Phero save rewrote it).
   */
  async loadSession(): Promise<LoadedSession> {
    const entry = await natsRequest('read', this.sessionId, () => this.kv.get(this.sessionId));
    const known = this.known;
    if (
      known &&
      known.doc !== EMPTY_DOCUMENT &&
      entry?.operation === 'PUT' &&
      entry.revision === known.revision
    ) {
      // The revision this process last wrote or read: a KV revision is one stored value, so its
      // decoded (frozen) document stands, without parsing and freezing the whole log again. (An
      // empty document may stand for a value read as absent: that one is decoded again.)
      return {
        doc: known.doc,
        revision: known.revision,
        exists: true,
        updatedAt: entry.created,
        ...(known.keyCopyStale ? { keyCopyStale: true } : {}),
      };
    }
    let loaded = loadedSession(this.sessionId, entry);
    if (mayHaveLostKeyMarks(loaded.doc)) {
      const sidecar = await natsRequest('read', this.sessionId, () =>
        this.kv.get(keySidecarOf(this.sessionId)),
      );
      loaded = loadedSession(this.sessionId, entry, sidecar);
    }
    const doc = deepFreeze(loaded.doc);
    this.known = { revision: loaded.revision, doc, keyCopyStale: loaded.keyCopyStale };
    this.knownBytes = entry?.length ?? 0;
    return { ...loaded, doc };
  }

  /**
   * Writes one batch with one compare-and-swap and settles every caller in it. The first try
   * applies the batch to what this instance last saw; any doubt (an error of a change, a size over
   * the limit, a lost race) is decided again on a fresh read. Lost races and requests the cluster
   * did not answer (a stream leader being elected, a server going away) are retried until
   * `writeBudgetMs` has passed.
   */
  private async commit(batch: PendingChange[]): Promise<void> {
    const started = performance.now();
    const budgetLeft = () => performance.now() - started < this.opts.writeBudgetMs;
    let live = batch;
    // The first try is on what this instance last saw; later ones on a fresh read.
    let base: KnownSession | null = this.contended ? null : this.known;
    let tentative = base !== null;
    this.contended = false;
    // A write sent but not answered: it may still be stored, so it is only ever sent again as it is.
    let inDoubt = null as UnansweredWrite | null;
    for (let retries = 0; ;) {
      // Once a write is in doubt its callers wait for its outcome, even those who abort.
      if (inDoubt === null) {
        live = withoutAborted(live);
        if (live.length === 0) return;
      }
      let lostRace: boolean;
      let failure: unknown;
      try {
        if (inDoubt !== null) {
          const write = inDoubt;
          // Same revision and message id: stored at most once, however many copies arrive.
          if (await this.send(write)) return settle(live, write.outcomes);
          // A write on that revision was stored, this one or another process's. Only a save with
          // an idempotency key can tell which, on a fresh read (its key, or what is stored at its
          // cursors; see provesNotStored); the others, and those who aborted, get the write's
          // error: their change may or may not be stored.
          inDoubt = null;
          live = live.filter((pending) => {
            if (pending.opts?.idempotent && !pending.opts.signal?.aborted) {
              pending.unknownOutcome = { error: write.error };
              return true;
            }
            pending.reject(write.error);
            return false;
          });
          if (live.length === 0) return;
          base = null;
          tentative = false;
          this.contended = true;
          continue;
        }
        if (base === null) base = await this.loadSession();
        const limit = await this.limitBytes();
        const plan = planBatch(base.doc, live, base.revision, limit, this.sessionId, !tentative);
        if (tentative && (plan.doubtful || plan.value === null)) {
          base = null;
          tentative = false;
          continue;
        }
        if (plan.value === null) return settle(live, plan.outcomes);
        const write = {
          revision: base.revision,
          value: plan.value,
          doc: plan.doc,
          keyCopy: keyCopyOf(base, plan.doc),
          limit,
        };
        try {
          if (await this.send(write)) return settle(live, plan.outcomes);
        } catch (error) {
          if (mayHaveBeenStored(error)) inDoubt = { ...write, outcomes: plan.outcomes, error };
          throw error;
        }
        // Another writer changed the key first: tried again below on a fresh read.
        lostRace = true;
        tellObserver(this.opts.observer, (observer) => observer.casRetry?.('nats', 1));
      } catch (error) {
        if (!isTransient(error) || !budgetLeft()) return rejectAll(live, error);
        lostRace = false;
        failure = error;
      }
      base = null;
      if (tentative && lostRace) {
        // What this instance saw was stale: not contention yet, reload at once.
        tentative = false;
        continue;
      }
      tentative = false;
      retries++;
      if (lostRace) this.contended = true;
      if (!budgetLeft()) {
        return rejectAll(
          live,
          lostRace ? new ConcurrentUpdateError(this.sessionId, retries) : failure,
        );
      }
      await backoff(retries);
    }
  }

  /** Sends `write`; false when another write on its revision was stored first (see {@link tryWrite}). */
  private async send(write: PlannedWrite): Promise<boolean> {
    if (!(await this.tryWrite(write.revision, write.value, write.doc, write.keyCopy))) return false;
    this.reportSize(write.value.length, write.revision, write.limit);
    return true;
  }

  /**
   * One compare-and-swap write: a publish expecting the key's last revision, with a message id made
   * of the key and that revision. False when another writer changed the key first, also when the
   * server took another write on the same revision first (it answers that one as a duplicate): a
   * replicated bucket on nats-server before 2.9.21 does not enforce the expected revision alone
   * (nats-io/nats-server#4320), the message id makes it hold there too.
   *
   * With `keyCopy`, the session's key copy is published right behind it, in the same flush (one
   * round trip for both). The copy is not checked against a revision and its failure is ignored:
   * the keys are marked on the messages written in this compare-and-swap, and a copy that missed
   * a key (a lost race, a crash) gets it back with the next keyed write, from the marks.
   */
  private async tryWrite(
    revision: number,
    value: Uint8Array,
    doc: SessionDocument,
    keyCopy: Uint8Array | null,
  ): Promise<boolean> {
    try {
      const written = natsRequest('write', this.sessionId, () =>
        this.target.js.publish(this.target.subject, value, {
          headers: expectRevisionHeaders(revision),
          msgID: casMessageId(this.sessionId, revision),
        }),
      );
      const copied = keyCopy
        ? this.target.js.publish(this.target.sidecarSubject, keyCopy).catch(() => undefined)
        : undefined;
      const ack = await written.finally(() => copied);
      if (ack.duplicate) return false;
      this.known = { revision: ack.seq, doc: deepFreeze(doc) };
      this.knownBytes = value.length;
      return true;
    } catch (error) {
      if (isWrongLastSequence(error)) return false;
      throw error;
    }
  }

  private reportSize(valueBytes: number, revision: number, limitBytes: number): void {
    tellObserver(this.opts.observer, (observer) =>
      observer.sessionSize?.({
        backend: 'nats',
        sessionId: this.sessionId,
        bytes: writeSizeBytes(valueBytes, revision, this.sessionId),
        limitBytes,
      }),
    );
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

/** A compare-and-swap write planned for a batch. */
interface PlannedWrite {
  revision: number;
  value: Uint8Array;
  doc: SessionDocument;
  /** The key copy to publish with it (see `keySidecarOf`); null when its keys did not change. */
  keyCopy: Uint8Array | null;
  limit: number;
}

/**
 * The key copy a write from `base` to `doc` publishes: the keys of `doc` when it is a plain array
 * (an object value holds its keys itself) and a save remembered a new key, or the keys moved out
 * of an object an earlier version wrote; else null.
 */
function keyCopyOf(base: KnownSession, doc: SessionDocument): Uint8Array | null {
  if (!doc.keys || doc.keys.length === 0 || !isPlainLog(doc)) return null;
  if (doc.keys === base.doc.keys && !base.keyCopyStale) return null;
  return encodeKeySidecarValue(doc);
}

/** A write that was sent and not answered, with what its callers get if it is stored. */
interface UnansweredWrite extends PlannedWrite {
  outcomes: BatchPlan['outcomes'];
  /** What the callers get if its outcome stays unknown. */
  error: unknown;
}

/** Full jitter: a random wait up to `BASE * 2^(retry-1)`, capped. */
function backoff(retry: number): Promise<void> {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (retry - 1));
  return delay(Math.random() * ceiling);
}

function expectRevisionHeaders(revision: number): MsgHdrs {
  const h = headers();
  h.set('Nats-Expected-Last-Subject-Sequence', `${revision}`);
  return h;
}

/** The JetStream client and subject behind a KV handle (nats' own KV writes the same way). */
function writeTarget(kv: KV, key: string): WriteTarget {
  const impl = kv as unknown as {
    js?: JetStreamClient;
    bucket?: string;
    subjectForKey?: (key: string, edit?: boolean) => string;
  };
  if (!impl.js) throw new TypeError('NatsMemory needs a KV handle from nc.jetstream().views.kv()');
  const subjectOf = (k: string) =>
    impl.subjectForKey ? impl.subjectForKey.call(kv, k, true) : `$KV.${impl.bucket}.${k}`;
  return { js: impl.js, subject: subjectOf(key), sidecarSubject: subjectOf(keySidecarOf(key)) };
}

import { connect, type ConnectionOptions, type KV, type KvStatus, type NatsConnection } from 'nats';
import {
  assertOneOfOptions,
  assertOptionsObject,
  assertStringOption,
  assertWholeNumberOption,
} from '../core/factory-options';
import { RESOURCE_META_KEY, type MemoryBackend } from '../core/backend.interface';
import { eraseListedSessions } from '../core/resource-erase';
import { deleteIfUnchanged } from '../core/session-delete';
import { assertResource } from '../core/session-list';
import { legacySummaryPolicy, type SummarizationOptions } from '../core/legacy-summarization';
import type { StoreObserver } from '../core/store-observer.interface';
import { assertSessionId } from '../core/session-id';
import { withTimeout } from '../core/timeout';
import { NatsRequestError, natsRequest } from './nats-request.error';
import { bucketMaxValueSize } from './nats-size-limit';
import { listNatsSessions, type NatsListSource } from './nats-session.list';
import { NatsMemory } from './nats.store';
import { deleteNatsSessionJobs } from './nats-compaction-job.store';
import { DEFAULT_NATS_TIMEOUT_MS } from './nats.defaults';
import type { CheckpointStorage } from '../core/checkpoint-storage.interface';
import { removingThreads } from '../core/thread-cleanup';
import { NatsCheckpointStorage } from './nats-checkpoint.storage';

/** Default wait for one KV request, and for `check()`, in milliseconds. */
export { DEFAULT_NATS_TIMEOUT_MS } from './nats.defaults';
/** How many session values `list` reads at once. */

interface NatsBackendCommonOptions {
  /** The KV bucket holding one key per session; created (history 1) when missing, else bound. */
  bucket: string;
  /**
   * Copies of the bucket a NATS cluster keeps (1, 3 or 5), used only when the bucket is created
   * here. Default 1; use 3 on a cluster, so that losing one server loses no acknowledged write.
   */
  replicas?: number;
  /** Drop the messages a snapshot covers. Default **true**: a session must fit one NATS message. */
  pruneCompacted?: boolean;
  /** @deprecated see `NatsMemoryOptions.summarization`. */
  summarization?: SummarizationOptions;
  /** Wait for one KV request (and for `check()`), in milliseconds. Default {@link DEFAULT_NATS_TIMEOUT_MS}. */
  timeoutMs?: number;
  /**
   * How long one write keeps retrying lost races and requests the cluster did not answer, in
   * milliseconds (see `NatsMemoryOptions.writeBudgetMs`). Default `DEFAULT_WRITE_BUDGET_MS`.
   */
  writeBudgetMs?: number;
  /** Clock for snapshot times; tests inject one. */
  now?: () => Date;
  /** Told about compare-and-swap retries and each written session's size, for metrics. */
  observer?: StoreObserver;
}

/** Options of `natsBackend`: `servers` (the backend opens and drains its connection) or a connection of yours. */
export type NatsBackendOptions = NatsBackendCommonOptions &
  (
    | {
        /** Server URL(s) to connect to; the backend owns that connection and drains it on `close()`. */
        servers: string | string[];
        /** Extra client options for the connection the backend opens (it reconnects forever by default). */
        connectionOptions?: Omit<ConnectionOptions, 'servers'>;
        connection?: never;
      }
    | {
        /** A connection the caller owns: `close()` leaves it open. */
        connection: NatsConnection;
        servers?: never;
        connectionOptions?: never;
      }
  );

/** What a health indicator reports about the NATS backend. */
export interface NatsBackendStatus {
  /** The server the connection is on now (host:port). */
  server: string;
  bucket: string;
  /** Sessions (live keys plus purge markers) in the bucket. */
  values: number;
  /** Bytes the bucket's stream holds. */
  bytes: number;
  /** The server's `max_payload` in bytes. */
  maxPayload: number;
  /** The bucket's max value size in bytes, or null when it has none. */
  maxValueSize: number | null;
}

/**
 * The NATS backend: the port plus what a health indicator needs. `connection` and `kv` are the
 * live handles (do not close them); `status()` reads the bucket within the timeout and throws a
 * `NatsRequestError` when the server or bucket does not answer (`check()` is `status()` with the
 * result dropped).
 */
export interface NatsBackend extends MemoryBackend {
  readonly kind: 'nats';
  readonly bucket: string;
  readonly connection: NatsConnection;
  readonly kv: KV;
  /** The LangGraph checkpoints of its threads (`@agent-memory/memory/langgraph`), `_lg.*` keys of the bucket. */
  readonly checkpointStorage: CheckpointStorage;
  /** Bucket and connection details, read within `timeoutMs`. */
  status(): Promise<NatsBackendStatus>;
}

/**
 * Sessions in a NATS JetStream KV bucket, one key per session id ({@link NatsMemory}).
 *
 * `list` walks the bucket's keys and reads every session's value: O(sessions) reads for each page
 * (16 at a time), as KV has no secondary index by `updatedAt`. Fine for thousands of sessions;
 * use Postgres for more. Values that do not decode and keys that are not valid session ids are
 * left out of the list (never changed); `inspect` on a corrupt one throws `CorruptSessionError`,
 * and `delete` purges it.
 * @throws NatsRequestError when the server cannot be reached or the bucket cannot be created or bound.
 */
export async function natsBackend(options: NatsBackendOptions): Promise<NatsBackend> {
  checkNatsBackendOptions(options);
  // Prepared (and checked) once, before connecting, for every session opened.
  const summaryPolicy = legacySummaryPolicy(options.summarization);
  const timeoutMs = options.timeoutMs ?? DEFAULT_NATS_TIMEOUT_MS;
  const owned = !options.connection;
  const nc =
    options.connection ??
    (await natsRequest(`connect to ${String(options.servers)}`, null, () =>
      connect({
        maxReconnectAttempts: -1,
        name: 'agent-memory',
        ...options.connectionOptions,
        servers: options.servers,
        timeout: timeoutMs,
      }),
    ));
  let kv: KV;
  let maxValueSize: number | null;
  let listSource: NatsListSource;
  try {
    const js = nc.jetstream({ timeout: timeoutMs });
    kv = await natsRequest(`open bucket "${options.bucket}"`, null, () =>
      js.views.kv(options.bucket, {
        history: 1,
        timeout: timeoutMs,
        // Reads go to the stream's leader: a direct get may be answered by any replica, and one
        // catching up (after a restart) would serve an older session than a save just
        // acknowledged. Set on an existing bucket too, whatever it was created with.
        allow_direct: false,
        ...(options.replicas ? { replicas: options.replicas } : {}),
      }),
    );
    const jsm = await natsRequest('open JetStream', null, () =>
      nc.jetstreamManager({ timeout: timeoutMs, checkAPI: false }),
    );
    listSource = { kv, js, jsm, bucket: options.bucket, timeoutMs };
    maxValueSize =
      (await natsRequest('read the bucket status', null, () => bucketMaxValueSize(kv))) ?? null;
  } catch (error) {
    if (owned) await nc.close();
    throw error;
  }

  const open = (sessionId: string) =>
    NatsMemory.open(kv, sessionId, {
      pruneCompacted: options.pruneCompacted,
      summaryPolicy,
      maxValueSize,
      writeBudgetMs: options.writeBudgetMs,
      now: options.now,
      observer: options.observer,
    });

  async function status(): Promise<NatsBackendStatus> {
    if (nc.isClosed())
      throw new NatsRequestError('status', null, new Error('the connection is closed'));
    const kvStatus = await natsWithin<KvStatus>(timeoutMs, 'status', () => kv.status());
    return {
      server: nc.getServer(),
      bucket: options.bucket,
      values: kvStatus.values,
      bytes: kvStatus.size,
      maxPayload: nc.info?.max_payload ?? 0,
      maxValueSize: kvStatus.maxValueSize > 0 ? kvStatus.maxValueSize : null,
    };
  }

  const checkpointStorage = new NatsCheckpointStorage(kv, nc.info?.max_payload);
  return removingThreads<NatsBackend>({
    kind: 'nats',
    bucket: options.bucket,
    checkpointStorage,
    connection: nc,
    kv,
    async open(sessionId) {
      assertSessionId(sessionId);
      return open(sessionId);
    },
    async list(q) {
      return listNatsSessions(listSource, q);
    },
    async erase(q) {
      assertResource(q?.resource);
      const { resource } = q;
      const erased = await eraseListedSessions(
        (page) => listNatsSessions(listSource, page),
        resource,
        async (id) => (await open(id)).eraseIf((meta) => meta[RESOURCE_META_KEY] === resource),
      );
      // Their compaction jobs go too (a job's result holds the summary it wrote).
      await deleteNatsSessionJobs(nc, options.bucket, erased.sessionIds, timeoutMs);
      return erased;
    },
    async inspect(sessionId) {
      return NatsMemory.inspect(kv, sessionId);
    },
    async delete(sessionId, opts) {
      assertSessionId(sessionId);
      if (opts?.ifUnchanged) {
        return deleteIfUnchanged(sessionId, opts.ifUnchanged, async (check) =>
          (await open(sessionId)).eraseIf(check),
        );
      }
      await (await open(sessionId)).clear();
    },
    status,
    async check() {
      await status();
    },
    async close() {
      if (owned && !nc.isClosed()) await nc.drain();
    },
  });
}

/** Runs `fn`, failing with a `NatsRequestError` after `timeoutMs`. */
function natsWithin<T>(timeoutMs: number, operation: string, fn: () => Promise<T>): Promise<T> {
  return withTimeout(
    natsRequest(operation, null, fn),
    timeoutMs,
    () => new NatsRequestError(operation, null, new Error(`no answer within ${timeoutMs} ms`)),
  );
}

/** Names the missing or bad option before anything is opened. */
function checkNatsBackendOptions(options: NatsBackendOptions): void {
  const factory = 'natsBackend';
  assertOptionsObject(factory, options);
  assertStringOption(factory, 'bucket', options.bucket);
  assertOneOfOptions(
    factory,
    options,
    ['servers', 'connection'],
    'server URL(s) such as nats://127.0.0.1:4222, or a NatsConnection of yours',
  );
  if (options.servers !== undefined) {
    const servers = Array.isArray(options.servers) ? options.servers : [options.servers];
    if (servers.length === 0) throw new TypeError(`${factory}: "servers" is an empty list`);
    servers.forEach((server, i) =>
      assertStringOption(
        factory,
        Array.isArray(options.servers) ? `servers[${i}]` : 'servers',
        server,
      ),
    );
  }
  assertWholeNumberOption(factory, 'timeoutMs', options.timeoutMs, 1);
  assertWholeNumberOption(factory, 'writeBudgetMs', options.writeBudgetMs, 0);
  if (options.replicas !== undefined && ![1, 3, 5].includes(options.replicas)) {
    throw new RangeError(`${factory}: "replicas" must be 1, 3 or 5, got ${options.replicas}`);
  }
}

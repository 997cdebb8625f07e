import { DEFAULT_NATS_TIMEOUT_MS } from './nats.defaults';
import type { KV, NatsConnection } from 'nats';
import {
  heldByAnother,
  type CompactionJobStore,
  type StoredCompactionJob,
} from '../core/compaction-job-store.interface';
import { finishedAfter } from '../core/job-finish-order';
import { NatsRequestError, natsRequest } from './nats-request.error';
import { readJsonRecord, swapJsonRecord } from './kv-json-record';

/** The jobs' KV bucket next to the sessions' bucket `bucket`. */
export function natsJobsBucket(bucket: string): string {
  return `${bucket}_jobs`;
}

/**
 * Deletes the compaction jobs of `sessionIds` from the jobs bucket of the sessions' bucket
 * `bucket`, when that bucket exists (it is not created for this).
 * @returns how many it deleted.
 */
export async function deleteNatsSessionJobs(
  connection: NatsConnection,
  bucket: string,
  sessionIds: readonly string[],
  timeoutMs = DEFAULT_NATS_TIMEOUT_MS,
): Promise<number> {
  if (sessionIds.length === 0) return 0;
  const jobs = natsJobsBucket(bucket);
  const jsm = await natsRequest('open JetStream', null, () =>
    connection.jetstreamManager({ timeout: timeoutMs, checkAPI: false }),
  );
  const exists = await jsm.streams.info(`KV_${jobs}`).then(
    () => true,
    (error: unknown) => {
      if (/stream not found/i.test(String(error))) return false;
      throw new NatsRequestError(`open bucket "${jobs}"`, null, error as Error);
    },
  );
  if (!exists) return 0;
  const store = await natsCompactionJobStore({ connection, bucket: jobs, ttlMs: 0, timeoutMs });
  return store.deleteForSessions(sessionIds);
}

/** Options of {@link natsCompactionJobStore}. */
export interface NatsCompactionJobStoreOptions {
  /** The connection (such as `natsBackend(...).connection`); not closed here. */
  connection: NatsConnection;
  /** The jobs' KV bucket; created (history 1, `ttlMs`) when missing. Such as `<sessions bucket>_jobs`. */
  bucket: string;
  /** The bucket's max age: a job is deleted this long after its last change (ms). */
  ttlMs: number;
  /** Wait for one KV request (ms). Default {@link DEFAULT_NATS_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/**
 * Compaction job states in a NATS KV bucket next to the sessions' one: one key per job, rewritten
 * at each change; the bucket's max age expires them.
 * @throws NatsRequestError when the bucket cannot be created or bound.
 */
export async function natsCompactionJobStore(
  options: NatsCompactionJobStoreOptions,
): Promise<CompactionJobStore> {
  const timeout = options.timeoutMs ?? DEFAULT_NATS_TIMEOUT_MS;
  const kv: KV = await natsRequest(`open bucket "${options.bucket}"`, null, () =>
    options.connection
      .jetstream({ timeout })
      // Leader reads, as for sessions: a lagging replica would answer an older job state.
      .views.kv(options.bucket, { history: 1, ttl: options.ttlMs, timeout, allow_direct: false }),
  );
  const read = async (jobId: string) =>
    (await readJsonRecord<StoredCompactionJob>(kv, jobId, 'a compaction job')).value;
  /** Stores `job` unless `refuse` says no to the job stored under its id (compare-and-swap). */
  const swapUnless = (
    job: StoredCompactionJob,
    refuse: (stored: StoredCompactionJob | null) => boolean,
  ) =>
    swapJsonRecord(kv, job.id, job, refuse, {
      what: 'a compaction job',
      session: job.sessionId,
    });
  return {
    async put(job) {
      await natsRequest('store a compaction job', job.sessionId, () =>
        kv.put(job.id, JSON.stringify(job)),
      );
    },
    // A read, then an update at the revision read: a write in between makes it fail, and we read again.
    putIfNewer(job) {
      return swapUnless(job, (stored) => stored !== null && finishedAfter(stored, job));
    },
    claim(job, now) {
      return swapUnless(job, (stored) => heldByAnother(stored, job, now));
    },
    get: read,
    // KV has no index by session: every job is read (the bucket's max age keeps it small).
    async deleteForSessions(sessionIds) {
      if (sessionIds.length === 0) return 0;
      const gone = new Set(sessionIds);
      const keys: string[] = [];
      await natsRequest('list compaction jobs', null, async () => {
        for await (const key of await kv.keys()) keys.push(key);
      });
      let deleted = 0;
      for (const key of keys) {
        const job = await read(key);
        if (!job || !gone.has(job.sessionId)) continue;
        await natsRequest('delete a compaction job', job.sessionId, () => kv.purge(key));
        deleted++;
      }
      return deleted;
    },
  };
}

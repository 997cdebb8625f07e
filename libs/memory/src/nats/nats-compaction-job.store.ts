import { DEFAULT_NATS_TIMEOUT_MS } from '../core/defaults';
import type { KV, NatsConnection } from 'nats';
import type {
  CompactionJobStore,
  StoredCompactionJob,
} from '../compaction/compaction-job-store.interface';
import { natsRequest } from './nats-request.error';

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
      .views.kv(options.bucket, { history: 1, ttl: options.ttlMs, timeout }),
  );
  return {
    async put(job) {
      await natsRequest('store a compaction job', job.sessionId, () =>
        kv.put(job.id, JSON.stringify(job)),
      );
    },
    async get(jobId) {
      const entry = await natsRequest('read a compaction job', null, () => kv.get(jobId));
      if (!entry || entry.operation !== 'PUT' || entry.value.length === 0) return null;
      return JSON.parse(entry.string()) as StoredCompactionJob;
    },
  };
}

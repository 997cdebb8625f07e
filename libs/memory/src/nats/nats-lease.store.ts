import type { KV, NatsConnection } from 'nats';
import { DEFAULT_NATS_TIMEOUT_MS } from './nats.defaults';
import { ConcurrentUpdateError } from '../core/errors';
import {
  leaseHeldByAnother,
  type LeaseRecord,
  type LeaseStore,
} from '../core/lease-store.interface';
import { isWrongLastSequence, natsRequest } from './nats-request.error';

/** Compare-and-swap rounds a claim makes: a round is lost only to another claim of the same lease. */
const CLAIM_ATTEMPTS = 10;

/** The leases' KV bucket next to the sessions' bucket `bucket`. */
export function natsLeasesBucket(bucket: string): string {
  return `${bucket}_leases`;
}

/** Options of {@link natsLeaseStore}. */
export interface NatsLeaseStoreOptions {
  /** The connection (such as `natsBackend(...).connection`); not closed here. */
  connection: NatsConnection;
  /** The leases' KV bucket; created (history 1) when missing. Such as `<sessions bucket>_leases`. */
  bucket: string;
  /** Wait for one KV request (ms). Default {@link DEFAULT_NATS_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/**
 * Leases in a NATS KV bucket next to the sessions' one: one key per lease, each claim a
 * compare-and-swap on the revision it read, so of two processes claiming at once one wins.
 * @throws NatsRequestError when the bucket cannot be created or bound.
 */
export async function natsLeaseStore(options: NatsLeaseStoreOptions): Promise<LeaseStore> {
  const timeout = options.timeoutMs ?? DEFAULT_NATS_TIMEOUT_MS;
  const kv: KV = await natsRequest(`open bucket "${options.bucket}"`, null, () =>
    options.connection
      .jetstream({ timeout })
      .views.kv(options.bucket, { history: 1, timeout, allow_direct: false }),
  );
  const read = async (name: string) => {
    const entry = await natsRequest('read a lease', null, () => kv.get(name));
    const lease =
      entry && entry.operation === 'PUT' && entry.value.length > 0
        ? (JSON.parse(entry.string()) as LeaseRecord)
        : null;
    return { lease, revision: entry?.revision ?? 0 };
  };
  /** Writes `next` at the revision read unless `refuse` says no; a write in between means a re-read. */
  const swapUnless = async (
    name: string,
    next: LeaseRecord | null,
    refuse: (stored: LeaseRecord | null) => boolean,
  ): Promise<boolean> => {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const { lease, revision } = await read(name);
      if (refuse(lease)) return false;
      const value = next === null ? '' : JSON.stringify(next);
      try {
        await natsRequest('write a lease', null, () =>
          revision === 0 ? kv.create(name, value) : kv.update(name, value, revision),
        );
        return true;
      } catch (error) {
        // `create` of a key another process just created fails the same way: read again.
        if (!isWrongLastSequence(error)) throw error;
      }
    }
    throw new ConcurrentUpdateError(name, CLAIM_ATTEMPTS);
  };
  return {
    claim: (name, owner, expiresAt, now) =>
      swapUnless(name, { owner, expiresAt }, (stored) => leaseHeldByAnother(stored, owner, now)),
    async release(name, owner) {
      await swapUnless(name, null, (stored) => stored?.owner !== owner);
    },
    async get(name) {
      return (await read(name)).lease;
    },
  };
}

import type { KV, NatsConnection } from 'nats';
import { DEFAULT_NATS_TIMEOUT_MS } from './nats.defaults';
import {
  leaseHeldByAnother,
  type LeaseRecord,
  type LeaseStore,
} from '../core/lease-store.interface';
import { natsRequest } from './nats-request.error';
import { readJsonRecord, swapJsonRecord } from './kv-json-record';

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
  const swapUnless = (
    name: string,
    next: LeaseRecord | null,
    refuse: (stored: LeaseRecord | null) => boolean,
  ) => swapJsonRecord(kv, name, next, refuse, { what: 'a lease', session: null });
  return {
    claim: (name, owner, expiresAt, now) =>
      swapUnless(name, { owner, expiresAt }, (stored) => leaseHeldByAnother(stored, owner, now)),
    async release(name, owner) {
      await swapUnless(name, null, (stored) => stored?.owner !== owner);
    },
    async get(name) {
      return (await readJsonRecord<LeaseRecord>(kv, name, 'a lease')).value;
    },
  };
}

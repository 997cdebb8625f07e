/**
 * `@agent-memory/memory/nats`: sessions in a NATS JetStream KV bucket. Importing this loads the
 * `nats` client; the core entry never does.
 */
export * from './nats.store';
export * from './nats.backend';
export { NatsRequestError } from './nats-request.error';
export { DEFAULT_MAX_PAYLOAD_BYTES } from './nats.defaults';
export {
  natsCompactionJobStore,
  type NatsCompactionJobStoreOptions,
} from './nats-compaction-job.store';
export { natsAuditLog, natsAuditStream, type NatsAuditLogOptions } from './nats-audit.log';
export { natsJobsBucket, deleteNatsSessionJobs } from './nats-compaction-job.store';
export { natsLeaseStore, natsLeasesBucket, type NatsLeaseStoreOptions } from './nats-lease.store';
export { natsDriver, NATS_PEERS, type NatsSettings } from './nats.driver';

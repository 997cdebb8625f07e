export { BUILT_IN_DRIVERS } from './built-in-drivers';
export { checkMemoryReadiness, type CheckMemoryReadinessOptions } from './memory-readiness';
export { postgresDriver, POSTGRES_PEERS, type PostgresSettings } from '../postgres/postgres.driver';
export { natsDriver, NATS_PEERS, type NatsSettings } from '../nats/nats.driver';
export * from '../postgres/postgres.defaults';
export * from '../nats/nats.defaults';

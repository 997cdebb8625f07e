// The PostgreSQL and NATS drivers themselves are exported by their own entry points
// (`/postgres`, `/nats`): their types name the optional packages' types, which the root entry's
// declarations must not need. Here they are reached through BUILT_IN_DRIVERS, typed as the port.
export { BUILT_IN_DRIVERS } from './built-in-drivers';
export { checkMemoryReadiness, type CheckMemoryReadinessOptions } from './memory-readiness';
export * from '../postgres/postgres.defaults';
export * from '../nats/nats.defaults';

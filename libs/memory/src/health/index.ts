/**
 * `@agent-memory/memory/health`: Terminus health indicators for the `MemoryModule`'s backend.
 * Importing this loads `@nestjs/terminus` (the core entry never does), but neither `pg` nor `nats`.
 */
export { MemoryHealthIndicator, type MemoryHealthOptions } from './memory.health';
export { NatsMemoryHealthIndicator } from './nats-memory.health';
export { PostgresMemoryHealthIndicator } from './postgres-memory.health';
export { DEFAULT_HEALTH_TIMEOUT_MS, HealthTimeoutError } from './health-timeout';

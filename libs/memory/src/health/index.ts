/**
 * `@agent-memory/memory/health`: Terminus health indicators for the `MemoryModule`'s backend, and
 * `MemoryHealthModule`, which picks the right one for the configured backend. Importing this
 * loads `@nestjs/terminus` (the core entry never does), but neither `pg` nor `nats`.
 */
export { MemoryHealthIndicator, type MemoryHealthOptions } from './memory.health';
export { NatsMemoryHealthIndicator } from './nats-memory.health';
export { PostgresMemoryHealthIndicator } from './postgres-memory.health';
export { DEFAULT_HEALTH_TIMEOUT_MS, HealthTimeoutError } from './health-timeout';
export {
  getMemoryHealthToken,
  InjectMemoryHealth,
  MemoryBackendHealthIndicator,
  MemoryHealthModule,
  probeMemoryBackend,
  type MemoryHealthModuleOptions,
} from './memory-health.module';

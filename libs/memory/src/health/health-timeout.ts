export { HealthTimeoutError } from '../core/memory-readiness';
export { DEFAULT_HEALTH_TIMEOUT_MS } from '../core/defaults';

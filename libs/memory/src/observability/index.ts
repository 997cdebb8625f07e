/**
 * `@agent-memory/memory/observability`: a `MemoryBackend` decorator that times every call for
 * metrics and wraps it in an OpenTelemetry span (`@opentelemetry/api` only; no SDK is loaded).
 */
export * from './memory-observer.interface';
export * from '../core/store-observer.interface';
export * from './instrumented.backend';

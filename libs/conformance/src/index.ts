/**
 * `@agent-memory/conformance`: the contract every `MemoryBackend` keeps, as suites for jest or
 * vitest (`describeMemoryBackendConformance(initializer)`, and the audit log's and compaction job
 * store's), the fixtures they use, and the `agent-memory-conformance <module>` command.
 */
export {
  describeMemoryBackendConformance,
  type MemoryBackendConformanceOptions,
} from './memory-backend.conformance';
export { describeAuditLogConformance, type AuditLogInitializer } from './audit-log.conformance';
export {
  describeCompactionJobStoreConformance,
  type CompactionJobStoreInitializer,
} from './compaction-job-store.conformance';
export {
  assertMemoryBackendInitializer,
  InvalidInitializerError,
  type ConformanceBackendOptions,
  type MemoryBackendCapabilities,
  type MemoryBackendInitializer,
  type ProcessModule,
} from './initializer';
export {
  MissingTestRunnerError,
  type ConformanceRunner,
  type ConformanceRunOptions,
} from './runner';
export { useConformanceBackends, type ConformanceContext, type TestRegistration } from './context';
export type { ProcessConformanceOptions } from './suites/processes.conformance';
export { conversation, everyShapeMessages, texts } from './fixtures';
export { defaultExportOf } from './module-loader';

/**
 * `@agent-memory/conformance`: the contract every `MemoryBackend` keeps, as suites for jest or
 * vitest (`describeMemoryBackendConformance(initializer)`, and the audit log's and compaction job
 * store's), the fixtures they use, and the `agent-memory-conformance <module>` command.
 */
export {
  describeMemoryBackendConformance,
  type MemoryBackendConformanceOptions,
  type ProcessConformanceOptions,
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
export { useConformanceBackends, type ConformanceBackends } from './context';
export { TestClock, compactionJob, conversation, everyShapeMessages, texts } from './fixtures';
export { defaultExportOf } from './module-loader';

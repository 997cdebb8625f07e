/**
 * `@agent-memory/conformance`: the suites every backend (and vector store) runs, the harnesses
 * that plug each store in, and the fixtures they share. Test code only: the package never
 * imports it.
 */
export * from './backend.conformance';
export * from './backends';
export * from './compaction.conformance';
export * from './erase.conformance';
export * from './errors.conformance';
export * from './fixtures';
export * from './harness';
export * from './legacy-summarization.conformance';
export * from './log.conformance';
export * from './metadata-listing.conformance';
export * from './save-retrieve.conformance';
export * from './saved-at.conformance';
export * from './snapshots.conformance';
export * from './vector-store.conformance';
export * from './processes.conformance';
export * from './audit-log.conformance';
export * from './retention.conformance';

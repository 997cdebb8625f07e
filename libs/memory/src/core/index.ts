export * from './defaults';
export * from './errors';
export * from './message';
export {
  MAX_MESSAGE_PARTS,
  MAX_MESSAGE_TOOL_CALLS,
  decodeMessage,
  decodeMessages,
  validateMessage,
  validateMessages,
} from './message.codec';
export { assertMetaEntry } from './session-meta';
export { KEEP_LOG_META_KEY, keepsWholeLog } from './kept-log';
export { unstorableTextReason } from './storable-text';
export { jsonShapeProblem, type JsonShapeLimits, type JsonShapeProblem } from './json-shape';
export { MAX_PROVIDER_DATA_BYTES, MAX_PROVIDER_DATA_DEPTH } from './provider-data';
export * from './memory.interface';
export {
  IDEMPOTENCY_KEY_WINDOW,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  assertIdempotencyKey,
} from './idempotency';
export * from './snapshot';
export * from './session-id';
export * from './tool-pairing';
export * from './backend.interface';
export { assertResource } from './session-list';
export { sameSessionState } from './session-info';
export { sessionMarkdown, type SessionMarkdownInput } from './session-markdown';
export * from './llm-client.interface';
export * from './compaction-job';
export * from './compaction-job-store.interface';
export * from './audit-log.interface';
export * from './covered-log-pruning';
export type { SummarizationOptions } from './legacy-summarization';
export {
  HealthTimeoutError,
  readinessByCheck,
  type MemoryReadiness,
  type MemoryReadinessOptions,
} from './memory-readiness';
export * from './memory-driver';
export * from './wrapping-backend';
export * from './driver-lookup';
export * from './lease-store.interface';
export { SettingsReader, type RequiredSetting } from './settings-reader';
export { loadOptionalModule, MissingPeerError } from './optional-peer';
export { InMemoryLeaseStore } from './in-memory-lease.store';

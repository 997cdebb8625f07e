export { exportSessions, readSessionLine, type ExportSessionsOptions } from './export-sessions';
export {
  DEFAULT_MAX_IMPORT_LINE_BYTES,
  importSession,
  importSessions,
  type ImportProgress,
  type ImportResult,
  type ImportSessionOptions,
  type ImportSessionsOptions,
} from './import-sessions';
export { MAX_IMPORT_BATCH_MESSAGES, PRUNED_HISTORY_PLACEHOLDER } from './import-plan';
export { splitLines, type InputLine, type LineSource } from './line-splitter';
export {
  DEFAULT_IMPORT_LINE_SHAPE,
  decodeSessionLine,
  encodeSessionLine,
  type SessionLine,
} from './session-line';

export { exportSessions, readSessionLine, type ExportSessionsOptions } from './export-sessions';
export {
  DEFAULT_MAX_IMPORT_LINE_BYTES,
  importSession,
  importSessions,
  type ImportProgress,
  type ImportResult,
  type ImportSessionsOptions,
} from './import-sessions';
export { PRUNED_HISTORY_PLACEHOLDER } from './import-plan';
export { splitLines, type InputLine, type LineSource } from './line-splitter';
export { decodeSessionLine, encodeSessionLine, type SessionLine } from './session-line';

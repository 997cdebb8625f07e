export { MemoryModule } from './memory.module';
export {
  MEMORY_MODULE_OPTIONS,
  MEMORY_BACKEND,
  MEMORY_COMPACTION_CONFIG,
  COMPACTION_JOBS,
  COMPACTION_RUNNER,
  DEFAULT_MEMORY_NAME,
  isDefaultMemoryName,
  getMemoryToken,
  getMemoryBackendToken,
  getCompactionServiceToken,
  getMemoryOptionsToken,
  memoryBackendLookupToken,
} from './memory.injection';
export * from './memory-module-options.interface';
export * from './memory.decorators';
export {
  resolveCompactionConfig,
  type ResolvedCompactionConfig,
  type ResolvedCompactionNats,
} from './memory-options.validation';
export { MemoryService } from './memory.service';
export * from './turn.interface';
export { CompactionService } from './compaction.service';
export {
  MEMORY_ERROR_HTTP_STATUS,
  MemoryExceptionFilter,
  memoryErrorBody,
  type MemoryErrorBody,
} from './memory-exception.filter';
export * from './compaction-worker.protocol';

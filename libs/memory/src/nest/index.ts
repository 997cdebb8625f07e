export { MemoryModule } from './memory.module';
export { MEMORY_MODULE_OPTIONS } from './memory.module-definition';
export * from './memory.constants';
export * from './memory-module-options.interface';
export * from './memory.tokens';
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
